/**
 * The connections of one process to one file take turns at writing. A connection holds SQLite's write lock
 * across the awaits of its batch, and another connection's BEGIN IMMEDIATE waits for that lock synchronously,
 * on the very thread that would finish the first batch: both would stall until busy_timeout. Waiting here,
 * asynchronously, lets the first batch finish. Uncontended (one store per process, the usual case) it costs
 * nothing; processes still wait for each other through SQLite's busy_timeout. Rule 6 of group-commit.ts.
 */
export class WriteLane {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  private static readonly byFile = new Map<string, WriteLane>();

  static of(file: string): WriteLane {
    let lane = WriteLane.byFile.get(file);
    if (!lane) {
      lane = new WriteLane();
      WriteLane.byFile.set(file, lane);
    }
    return lane;
  }

  /** Runs fn once the lane is this caller's, and hands the lane on when fn settles. */
  async hold<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.held = true;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.held = false;
    }
  }
}
