// The one poller the suites share: asks until the probe has an answer, or gives up with an error.

/** Polls `probe` every `stepMs` until it returns something other than undefined, or throws after `timeoutMs`. */
export const pollUntil = async <T>(
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs, stepMs, what }: { timeoutMs: number; stepMs: number; what: string },
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(stepMs);
  }
};
