// The PostgreSQL write path of one process: its concurrent write transactions joined into one, the idea of
// SQLite's group commit (store/sqlite/group-commit.ts) with PostgreSQL's costs. Its rules:
//
// 1. One write batch in flight per process, on one connection; reads (snapshots) run beside it on the pool.
// 2. A caller hears its outcome only after the COMMIT that made its writes durable, or after the rollback that
//    discarded them.
// 3. Each call is all or nothing, and a batchmate's failure never takes another call's writes with it: a batch
//    runs bare first; when one of several calls throws, the whole batch is rolled back and run again with each
//    call in a SAVEPOINT of its own (a failed statement aborts a PostgreSQL transaction, so only a savepoint
//    lets the others go on). A callback may therefore run more than once; only its last run counts.
// 4. Calls run in arrival order; a later call sees the writes of the earlier ones. Except neighbouring sends
//    (Store.write's `send`), which are correct whatever another send writes between two of their statements: in
//    a bare run these run interleaved, their statements sent together, one round trip for all of them instead of
//    one each; a replay runs them in order.
// 5. A transient failure (deadlock, lost connection, server restarting; postgres/transient.ts) rolls the whole
//    batch back and the driver runs it again, every call in it; a failure during COMMIT reaches every caller as
//    an outcome unknown. Nothing is reported as written that was not committed.
// 6. Lock order: a batch of several calls first locks, in one ordered statement (sql/agent-locks.ts), the agents'
//    rows its calls declared (Store.write's `agents`; a send's sender and named recipients), so two batches, or a
//    batch and a one-shot command, that write the same agents wait for each other in turn instead of deadlocking
//    through the batch's later calls.

import type { WriteOptions } from "../port.ts";
import { lockAgentRows } from "../sql/agent-locks.ts";
import type { Db } from "../sql/db.ts";

export interface WriteCall {
  fn: (db: Db) => Promise<unknown>;
  /** The agents' rows the call will write, when known in advance (rule 6). */
  agents: readonly string[];
  /** May run interleaved with the independent calls next to it in the batch (rule 4). */
  independent: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** One transaction on the batch's connection, re-run by the driver after a transient failure (rule 5). */
export type RunTransaction = (
  body: (db: Db, control: (sql: string) => Promise<void>) => Promise<Outcome[]>,
) => Promise<Outcome[]>;

const MAX_BATCH = 256;

/** What the batch tells its own transaction runner: passed through unclassified and never re-run (driver.ts). */
export class BatchSignal extends Error {}
/**
 * Thrown out of a bare run to roll it back: one of several calls failed, and the batch is run again guarded.
 * `settled`: the call that failed in a way a re-run would only repeat at a cost (it waited out lock_timeout);
 * it hears that failure now, truthfully (nothing of it was written), and the replay goes on without it.
 */
class ReplayGuarded extends BatchSignal {
  constructor(readonly settled?: { call: WriteCall; error: unknown }) {
    super("a call of the batch failed: replayed guarded");
  }
}
/** Thrown out of a run whose every call failed: nothing to keep, so the transaction is rolled back, not committed. */
class NothingToCommit extends BatchSignal {
  constructor(readonly outcomes: Outcome[]) {
    super("every call of the batch failed");
  }
}

export class PostgresGroupCommit {
  private queue: WriteCall[] = [];
  private draining = false;
  private guardNext = false;

  constructor(
    private readonly runTransaction: RunTransaction,
    /**
     * "batch": a failure that rolls back the whole batch to run it again (rule 5); "costly": one that a re-run
     * would only repeat after the same wait (lock or statement timeout); "call": the call's own failure.
     */
    private readonly failureKind: (error: unknown) => "batch" | "costly" | "call",
  ) {}

  run<T>(fn: (db: Db) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const { send } = options;
    const agents = [...(options.agents ?? []), ...(send?.recipients ? [send.sender, ...send.recipients] : [])];
    const independent = send !== undefined;
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, agents, independent, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      // Let callers that start in the same turn join the first batch.
      await Promise.resolve();
      while (this.queue.length > 0 || (await this.settle())) await this.settleBatch(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.draining = false;
    }
  }

  /** After a batch, give the callers it released one turn to queue their next transaction. */
  private async settle(): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return this.queue.length > 0;
  }

  /** Every caller hears an outcome, whatever fails. */
  private async settleBatch(batch: WriteCall[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.runOnce(batch, this.guardNext && batch.length > 1);
    } catch (error) {
      if (error instanceof NothingToCommit) outcomes = error.outcomes;
      else {
        for (const call of batch) call.reject(error);
        return;
      }
    }
    this.guardNext = outcomes.some((o) => !o.ok);
    batch.forEach((call, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) call.resolve(outcome.value);
      else call.reject(outcome.error);
    });
  }

  private async runOnce(batch: WriteCall[], guarded: boolean): Promise<Outcome[]> {
    try {
      return await this.runTransaction(async (db, control) => {
        if (batch.length > 1) await this.lockDeclaredAgents(db, batch);
        const outcomes = guarded ? await this.runGuarded(batch, db, control) : await this.runBare(batch, db);
        if (outcomes.every((o) => !o.ok)) throw new NothingToCommit(outcomes);
        return outcomes;
      });
    } catch (error) {
      // Replayed from the start: the failure may depend on what a batchmate before it wrote.
      if (!(error instanceof ReplayGuarded)) throw error;
      if (error.settled) {
        batch.splice(batch.indexOf(error.settled.call), 1);
        error.settled.call.reject(error.settled.error);
        if (batch.length === 0) return [];
      }
      return this.runOnce(batch, true);
    }
  }

  private async lockDeclaredAgents(db: Db, batch: WriteCall[]): Promise<void> {
    await lockAgentRows(db, [...new Set(batch.flatMap((call) => call.agents))]);
  }

  /**
   * Every call in one go, without savepoints: neighbouring independent calls together, interleaved (their
   * statements pipelined), the others one after another. When one of several fails, the batch is rolled back
   * and replayed guarded: a statement that failed has aborted the transaction under its batchmates too.
   */
  private async runBare(batch: WriteCall[], db: Db): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (let start = 0; start < batch.length; ) {
      let end = start + 1;
      if (batch[start]?.independent) while (end < batch.length && batch[end]?.independent) end++;
      const group = batch.slice(start, end);
      const settled = await Promise.allSettled(group.map((call) => call.fn(db)));
      const failed = settled.flatMap((result, i) =>
        result.status === "rejected" ? [{ call: group[i] as WriteCall, error: result.reason as unknown }] : [],
      );
      const batchWide = failed.find((f) => this.failureKind(f.error) === "batch");
      if (batchWide) throw batchWide.error;
      if (failed.length > 0 && batch.length > 1) {
        // Interleaved calls behind a failed statement fail with it: only the first costly failure is truly theirs.
        const costly = failed.find((f) => this.failureKind(f.error) === "costly");
        throw new ReplayGuarded(costly);
      }
      for (const result of settled) {
        outcomes.push(result.status === "fulfilled" ? { ok: true, value: result.value } : { ok: false, error: result.reason });
      }
      start = end;
    }
    return outcomes;
  }

  /** Each call in its own savepoint, so one that throws takes back only its own writes. */
  private async runGuarded(batch: WriteCall[], db: Db, control: (sql: string) => Promise<void>): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const call of batch) {
      await control("SAVEPOINT member");
      try {
        const value = await call.fn(db);
        await control("RELEASE member");
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (this.failureKind(error) === "batch") throw error;
        await control("ROLLBACK TO member; RELEASE member");
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}
