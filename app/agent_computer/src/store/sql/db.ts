import type { WriteOptions } from "../port.ts";

/** The few things the shared SQL needs from a dialect. Placeholders are written $1, $2, … everywhere. */
export interface Db {
  readonly dialect: "sqlite" | "postgres";
  /** " FOR UPDATE" on PostgreSQL; empty on SQLite, where BEGIN IMMEDIATE already serialises writers. */
  readonly forUpdate: string;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement and returns the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Runs a script of several statements, without parameters, as the database parses it (a migration file):
   * semicolons inside string literals, trigger and function bodies stay where they are.
   */
  exec(script: string): Promise<void>;
}

export interface Driver extends Db {
  /**
   * A write transaction: BEGIN IMMEDIATE on SQLite, where a failing batchmate can replay fn (group-commit.ts);
   * on PostgreSQL re-run after a transient failure that rolled it back (deadlock, serialization failure, server
   * restarting or full, connection lost before COMMIT: postgres/transient.ts), and joined with the process's
   * concurrent writes into one transaction (postgres/group-commit.ts). fn follows Store.write's rules, and
   * options are Store.write's.
   */
  transaction<T>(fn: (db: Db) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** A read-only snapshot. */
  snapshot<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** PostgreSQL through a transaction pooler (postgres/pooling.ts): nothing of a session outlasts a transaction. */
  readonly pooled?: boolean;
  /**
   * PostgreSQL only, on a direct connection: runs fn while this process holds the session advisory lock `key` (on a connection of its
   * own, so fn's transactions run beside it); another holder makes it wait.
   */
  withAdvisoryLock?<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /**
   * PostgreSQL only: runs fn without the client's deadline on silent connections (postgres/answer-watch.ts), for
   * statements that may run long on purpose (migrations, which lift statement_timeout).
   */
  withoutAnswerDeadline?<T>(fn: () => Promise<T>): Promise<T>;
  /** PostgreSQL only: LISTEN on a channel; onHint runs per notification and after every (re)subscribe. */
  listen?(channel: string, onHint: () => void): Promise<() => Promise<void>>;
  /** SQLite only: onHint runs when the database or its WAL file changes (any commit, by any process). */
  watchCommits?(onHint: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A row as either driver returns it; the converters below read its columns. */
export type Row = Record<string, unknown>;

export const str = (value: unknown): string => String(value);
export const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
/** Integers arrive as strings from PostgreSQL's int8; every numeric column passes through here. */
export const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));
export const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : num(value));
/** "$from, $from+1, …": count numbered parameters for an IN list or a VALUES row. */
export const placeholders = (count: number, from = 1): string =>
  Array.from({ length: count }, (_, i) => `$${i + from}`).join(", ");
export const jsonList = (value: unknown): string[] => (typeof value === "string" ? (JSON.parse(value) as string[]) : []);
