/**
 * How one worker service nudges another (a trigger consumed: the executor starts its run without waiting for a poll):
 * a sleep that ends early when notified; a notification while awake is remembered for the next wait. Not auto-wake,
 * which prompts agents (wake/).
 */
export class Nudge {
  private pending = false;
  private endSleep: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    this.endSleep?.();
  }

  /** Resolves true when notified (before or while waiting), false when the time ran out. */
  async wait(ms: number): Promise<boolean> {
    if (!this.pending && ms > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.endSleep = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.endSleep = undefined;
    const notified = this.pending;
    this.pending = false;
    return notified;
  }
}
