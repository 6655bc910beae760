import type { Db } from "../sql/db.ts";
import type { TransactionMode } from "./group-commit.ts";
import { WriteLane } from "./write-lane.ts";

/**
 * The plain path, chosen by AGENT_COMPUTER_SQLITE_GROUP_COMMIT=0 to bisect a bug: every call gets a BEGIN and a
 * COMMIT (or ROLLBACK) of its own, in arrival order; nothing is batched, replayed or put in a savepoint. It shares
 * no code with GroupCommitQueue, and keeps the invariants listed there that do not concern batches.
 */
export class SerialTransactions {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly execute: (sql: string) => void,
    private readonly db: Db,
    private readonly afterCommit: () => void = () => {},
    private readonly lane: WriteLane = new WriteLane(),
  ) {}

  run<T>(mode: TransactionMode, fn: (db: Db) => Promise<T>): Promise<T> {
    const turn = this.tail.then(() => (mode === "write" ? this.lane.hold(() => this.once(mode, fn)) : this.once(mode, fn)));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async once<T>(mode: TransactionMode, fn: (db: Db) => Promise<T>): Promise<T> {
    this.execute(mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
    try {
      const value = await fn(this.db);
      this.execute("COMMIT");
      if (mode === "write") this.afterCommit();
      return value;
    } catch (error) {
      try {
        this.execute("ROLLBACK");
      } catch {
        // SQLite already ended the transaction (a failed COMMIT, or an error that aborts it).
      }
      throw error;
    }
  }
}
