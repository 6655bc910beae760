// The worker's first connection. A worker started before its database (a reboot, a compose file, a restart
// of PostgreSQL) waits for it instead of exiting: it retries with a doubling delay, one log line per try with
// the next delay, and stops at once on a signal. Only "unreachable" is waited out; any other error (a bad
// password, a failed migration) ends the worker as before.
import { errorText, isAppError } from "../errors.ts";
import type { Store } from "../store/port.ts";
import type { Logger } from "./log.ts";

export const FIRST_RETRY_MS = 500;
export const MAX_RETRY_MS = 30_000;

export const nextDelay = (previous: number): number => Math.min(previous * 2, MAX_RETRY_MS);

const unreachable = (error: unknown): boolean => isAppError(error) && error.code === "STORE_UNAVAILABLE";

/** The opened store, or the signal that stopped the wait. */
export const openWhenReachable = async <S extends string>(
  open: () => Promise<Store>,
  log: Logger,
  stop: () => Promise<S>,
): Promise<{ store: Store } | { stoppedBy: S }> => {
  const stopped = stop().then((signal) => ({ stoppedBy: signal }));
  for (let attempt = 1, delay = FIRST_RETRY_MS; ; attempt++, delay = nextDelay(delay)) {
    const opening = open();
    const first = await Promise.race([
      opening.then(
        (store) => ({ store }),
        (error: unknown) => ({ error }),
      ),
      stopped,
    ]);
    if ("stoppedBy" in first) {
      // The open still in flight may succeed later; its connections must not outlive the worker.
      void opening.then((store) => store.close()).catch(() => undefined);
      return first;
    }
    if ("store" in first) {
      if (attempt > 1) log.log("info", "store reachable; starting", { attempts: attempt });
      return first;
    }
    if (!unreachable(first.error)) throw first.error;
    // The error names the environment variable, never the URL or its password.
    log.log("warn", "store unreachable; waiting for it (a signal stops the worker)", {
      attempt,
      retry_in_ms: delay,
      error: errorText(first.error),
    });
    const waited = await Promise.race([Bun.sleep(delay).then(() => undefined), stopped]);
    if (waited) return waited;
  }
};
