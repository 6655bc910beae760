// The SQLite write path: the rules it keeps, written down here once. driver.ts, write-lane.ts,
// serial-transactions.ts and checkpoint-thread.ts point here; test/unit/sqlite-group-commit.test.ts,
// sqlite-group-commit-switch.test.ts and sqlite-checkpoint-thread.test.ts hold them to it.
//
// 1. One connection per store, one transaction on it at a time: every store.write and store.read of a process
//    goes through its queue (GroupCommitQueue, or SerialTransactions under AGENT_COMPUTER_SQLITE_GROUP_COMMIT=0),
//    never to the connection directly. (The driver's own all/get/run/exec, outside any transaction, serve the
//    migration runner while the store opens, before any caller has it, and tests.)
// 2. A caller hears its outcome only after the COMMIT that made its writes durable, or after the rollback that
//    discarded them; nothing is reported as done before it is committed.
// 3. Each call is all or nothing: its writes land exactly once or not at all, and a batchmate's failure never
//    takes another call's writes with it. Because a failing batch is rolled back and replayed, a callback may run
//    more than once and only its last run counts: callbacks touch nothing outside the transaction (store/port.ts).
// 4. Calls run in arrival order; a later call in a batch sees the writes of the earlier ones. Reads and writes
//    never share a batch; a batch holds at most MAX_BATCH calls.
// 5. When BEGIN, COMMIT or a savepoint statement itself fails, every call of the batch is rejected, none of it is
//    committed, and the queue goes on with the next batch.
// 6. A write transaction holds SQLite's write lock across the awaits of its callbacks. So connections of one
//    process to one file take turns on the file's WriteLane (asynchronously) before BEGIN IMMEDIATE, never in
//    busy_timeout (synchronously, on the very thread the holder needs to finish). Reads take no lane (WAL).
// 7. afterCommit runs after every committed write batch and never after a rollback. The checkpoint thread it
//    wakes has its own connection, runs only PASSIVE checkpoints (which never block a writer), is stopped before
//    the main connection closes, and never keeps the process alive.

import type { Db } from "../sql/db.ts";
import { WriteLane } from "./write-lane.ts";

export type TransactionMode = "write" | "read";

interface Pending {
  mode: TransactionMode;
  fn: (db: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const MAX_BATCH = 256;

/**
 * Serialises this process's transactions on its single SQLite connection and commits the ones that queued
 * up while the previous batch ran together, under one BEGIN/COMMIT. A caller's promise settles only after
 * the COMMIT that made its writes durable. A lone caller gets a batch of one, exactly like a plain transaction.
 *
 * A failing callback rolls back only its own writes. A savepoint per callback would give that, but while one
 * is open SQLite copies every page the callback changes (measured: a fifth of a send). So a batch first runs
 * bare; only if a callback throws is the whole batch rolled back and replayed with each callback in its own
 * savepoint (the store port lets a callback run more than once: only its last run counts). After a batch
 * that had a failure the next one runs guarded straight away, so a steady stream of failing calls costs
 * what savepoints cost, not a replay of every batch.
 */
export class GroupCommitQueue {
  private queue: Pending[] = [];
  private draining = false;
  private guardNext = false;

  constructor(
    private readonly execute: (sql: string) => void,
    private readonly db: Db,
    private readonly afterCommit: () => void = () => {},
    private readonly lane: WriteLane = new WriteLane(),
  ) {}

  run<T>(mode: TransactionMode, fn: (db: Db) => Promise<T>): Promise<T> {
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

  private async runBatch(mode: TransactionMode, batch: Pending[]): Promise<void> {
    // Readers never wait for a writer in WAL mode: only write batches take the lane.
    if (mode === "write") await this.lane.hold(() => this.settleBatch(mode, batch));
    else await this.settleBatch(mode, batch);
  }

  /** Runs the batch; every caller hears an outcome, even when BEGIN, COMMIT or a savepoint statement fails. */
  private async settleBatch(mode: TransactionMode, batch: Pending[]): Promise<void> {
    try {
      // A batch of one needs no savepoint: rolling back the transaction rolls back exactly its writes.
      await this.runTransaction(mode, batch, this.guardNext && batch.length > 1);
    } catch (error) {
      // The transaction itself failed (SQLite busy, or it ended the transaction on its own, say on a full disk):
      // nothing of the batch is committed.
      this.rollbackQuietly();
      for (const item of batch) item.reject(error);
    }
  }

  private async runTransaction(mode: TransactionMode, batch: Pending[], guarded: boolean): Promise<void> {
    this.execute(mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
    const outcomes = guarded ? await this.runGuarded(batch) : await this.runBare(batch);
    if (outcomes === undefined) {
      this.rollbackQuietly();
      // Replayed from the start: the failure may depend on what a batchmate before it wrote.
      return this.runTransaction(mode, batch, true);
    }
    this.guardNext = outcomes.some((o) => !o.ok);
    if (outcomes.every((o) => !o.ok)) {
      // Nothing to keep: ending the transaction without a COMMIT spares the batch its only write.
      this.rollbackQuietly();
    } else {
      this.execute("COMMIT");
      if (mode === "write") this.afterCommit();
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  /** Every callback in one go; undefined when one of several throws (the batch is then replayed guarded). */
  private async runBare(batch: Pending[]): Promise<Outcome[] | undefined> {
    const outcomes: Outcome[] = [];
    for (const item of batch) {
      try {
        outcomes.push({ ok: true, value: await item.fn(this.db) });
      } catch (error) {
        if (batch.length > 1) return undefined;
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  /** Each callback in its own savepoint, so one that throws takes back only its own writes. */
  private async runGuarded(batch: Pending[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const item of batch) {
      this.execute("SAVEPOINT member");
      try {
        const value = await item.fn(this.db);
        this.execute("RELEASE member");
        outcomes.push({ ok: true, value });
      } catch (error) {
        this.execute("ROLLBACK TO member");
        this.execute("RELEASE member");
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  private rollbackQuietly(): void {
    try {
      this.execute("ROLLBACK");
    } catch {
      // Nothing to roll back: no BEGIN happened, or SQLite already ended the transaction (a failed COMMIT, or an error that aborts it).
    }
  }
}
