/** A sleep that ends early when notified; a notification while awake is remembered for the next wait. */
export class Wakeup {
  private pending = false;
  private wake: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    this.wake?.();
  }

  /** Resolves true when notified (before or while waiting), false when the time ran out. */
  async wait(ms: number): Promise<boolean> {
    if (!this.pending && ms > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.wake = undefined;
    const notified = this.pending;
    this.pending = false;
    return notified;
  }
}
