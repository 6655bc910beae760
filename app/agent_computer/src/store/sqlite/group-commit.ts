import type { Db } from "../sql/db.ts";

type Mode = "write" | "read";

interface Pending {
  mode: Mode;
  fn: (db: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 256;

/**
 * Serialises this process's transactions on its single SQLite connection and commits the ones that queued
 * up while the previous batch ran together: one BEGIN/COMMIT, each callback inside its own savepoint, so a
 * failing callback rolls back only its own writes. A caller's promise settles only after the COMMIT that
 * made its writes durable. A lone caller gets a batch of one, exactly like a plain transaction.
 */
export class GroupCommitQueue {
  private queue: Pending[] = [];
  private draining = false;

  constructor(
    private readonly execute: (sql: string) => void,
    private readonly db: Db,
    private readonly afterCommit: () => void = () => {},
  ) {}

  run<T>(mode: Mode, fn: (db: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ mode, fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      // Let callers that start in the same turn join the first batch.
      await Promise.resolve();
      while (this.queue.length > 0 || (await this.settle())) {
        const mode = this.queue[0]?.mode;
        let size = 0;
        while (size < this.queue.length && size < MAX_BATCH && this.queue[size]?.mode === mode) size++;
        await this.runBatch(mode ?? "write", this.queue.splice(0, size));
      }
    } finally {
      this.draining = false;
    }
  }

  /** After a batch, give the callers it released one turn to queue their next transaction. */
  private async settle(): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return this.queue.length > 0;
  }

  private async runBatch(mode: Mode, batch: Pending[]): Promise<void> {
    try {
      this.execute(mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    for (const item of batch) {
      this.execute("SAVEPOINT member");
      try {
        const value = await item.fn(this.db);
        this.execute("RELEASE member");
        outcomes.push({ ok: true, value });
      } catch (error) {
        this.execute("ROLLBACK TO member");
        this.execute("RELEASE member");
        outcomes.push({ ok: false, value: error });
      }
    }
    try {
      this.execute("COMMIT");
    } catch (error) {
      this.rollbackQuietly();
      for (const item of batch) item.reject(error);
      return;
    }
    if (mode === "write") this.afterCommit();
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.value);
    });
  }

  private rollbackQuietly(): void {
    try {
      this.execute("ROLLBACK");
    } catch {
      // Nothing to roll back: the failed COMMIT already ended the transaction.
    }
  }
}
