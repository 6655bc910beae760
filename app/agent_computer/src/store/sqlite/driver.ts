import type { Database, Statement } from "bun:sqlite";
import { AppError } from "../../errors.ts";
import type { Db, Driver } from "../sql/db.ts";
import { type CheckpointThread, LONG_LIVED_AUTOCHECKPOINT_PAGES, startCheckpointThread } from "./checkpoint-thread.ts";
import { watchCommits } from "./commit-watch.ts";
import { classifySqliteError } from "./error-mapping.ts";
import { GroupCommitQueue } from "./group-commit.ts";
import { SerialTransactions } from "./serial-transactions.ts";
import { WriteLane } from "./write-lane.ts";

const BUSY_TIMEOUT_MS = 5000;

/**
 * The WAL is kept between processes (SQLITE_FCNTL_PERSIST_WAL), so a one-shot command appends its commit to the
 * frames the last one left, all already copied into the database and synced by that one's close. A WAL that
 * starts empty costs one more fsync, of its header, at the first commit (4 fsyncs a command instead of 3).
 * Kept frames are not free: the next opener's recovery reads them all, and since recovery cannot tell they
 * were copied, the checkpoint at its close copies them all again. So the connection that closes the store
 * while the WAL is larger than this empties it (truncated to zero bytes), and the next command starts afresh.
 * 256 KiB is about 60 pages: some 20 inbox reads between two truncations.
 */
const KEPT_WAL_MAX_BYTES = 256 * 1024;

/** $1 → ?1: SQLite binds ?NNN by position, whatever order the placeholders appear in. */
const toSqlite = (sql: string): string => sql.replace(/\$(\d+)/g, "?$1");

const modeOf = async (path: string): Promise<number | undefined> => {
  try {
    return (await Bun.file(path).stat()).mode & 0o777;
  } catch {
    return undefined;
  }
};

const private0600 = (mode: number | undefined): boolean => mode === undefined || mode === 0o600;

/**
 * Directory 0700 and file 0600, created if missing; the kept -wal and -shm files (SQLite creates them with the
 * database's mode) made 0600 again if they were loosened. When all already are, four stats settle it: the
 * private-file primitives (and node:fs, two milliseconds of start-up) are loaded only to create or repair.
 */
const prepareFile = async (file: string): Promise<void> => {
  const dir = file.slice(0, file.lastIndexOf("/")) || "/";
  const companions = [`${file}-wal`, `${file}-shm`];
  const [dirMode, fileMode, ...companionModes] = await Promise.all([dir, file, ...companions].map(modeOf));
  if (dirMode === 0o700 && fileMode === 0o600 && companionModes.every(private0600)) return;
  const { ensurePrivateDir, ensurePrivateFile } = await import("../../local/private-files.ts");
  ensurePrivateDir(dir);
  ensurePrivateFile(file);
  for (const [i, companion] of companions.entries()) if (!private0600(companionModes[i])) ensurePrivateFile(companion);
};

/**
 * AGENT_COMPUTER_SQLITE_GROUP_COMMIT: 0 turns group commit off (one plain transaction per call, to bisect a
 * bug); 1 or unset keeps it on. Anything else is refused rather than read as either.
 */
export const groupCommitFromEnv = (env: Readonly<Record<string, string | undefined>>): boolean => {
  const raw = env.AGENT_COMPUTER_SQLITE_GROUP_COMMIT;
  if (raw === undefined || raw === "" || raw === "1") return true;
  if (raw === "0") return false;
  throw new AppError("INVALID_INPUT", "AGENT_COMPUTER_SQLITE_GROUP_COMMIT must be 0 (off) or 1 (on, the default)");
};

export interface SqliteOptions {
  /** A daemon that writes all day: WAL checkpoints move to a thread of their own (checkpoint-thread.ts). */
  longLived?: boolean;
  /**
   * false: one plain transaction per call (serial-transactions.ts) instead of group commit, to bisect a bug
   * (AGENT_COMPUTER_SQLITE_GROUP_COMMIT=0). Default true.
   */
  groupCommit?: boolean;
  /** Hears every transaction-control statement (BEGIN, COMMIT, SAVEPOINT, …) before it runs: for tests. */
  trace?: (statement: string) => void;
}

/** The connection with this store's settings; the first read of the file is here, so a foreign file fails here. */
const opened = async (file: string, open: typeof Database): Promise<Database> => {
  await prepareFile(file);
  const database = new open(file, { create: true, strict: true });
  try {
    database.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    database.run("PRAGMA journal_mode = WAL");
    database.run("PRAGMA synchronous = NORMAL");
    database.run("PRAGMA foreign_keys = ON");
    // Statement and savepoint journals (group commit's guarded batches) stay in memory instead of temp files:
    // in temp files they were measured as the largest single cost of a send after the COMMIT itself.
    database.run("PRAGMA temp_store = MEMORY");
  } catch (error) {
    database.close(false);
    throw error;
  }
  return database;
};

/**
 * Opens the file; bun:sqlite is imported here, not statically, so commands that never open a store never load it.
 * The rules every transaction on it follows are written down once, in group-commit.ts.
 */
export const openSqlite = async (file: string, options: SqliteOptions = {}): Promise<Driver> => {
  const sqlite = await import("bun:sqlite");
  const classify = (error: unknown): unknown => classifySqliteError(error, file);
  const database = await opened(file, sqlite.Database).catch((error: unknown) => Promise.reject(classify(error)));
  database.fileControl(sqlite.constants.SQLITE_FCNTL_PERSIST_WAL, 1);
  let checkpoints: CheckpointThread | undefined;
  if (options.longLived) {
    database.run(`PRAGMA wal_autocheckpoint = ${LONG_LIVED_AUTOCHECKPOINT_PAGES}`);
    checkpoints = startCheckpointThread(file);
  }
  const statements = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = database.prepare(toSqlite(sql));
      statements.set(sql, statement);
    }
    return statement;
  };
  const attempt = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      throw classify(error);
    }
  };
  const db: Db = {
    dialect: "sqlite",
    forUpdate: "",
    all: async <T>(sql: string, params: readonly unknown[] = []) =>
      attempt(() => prepare(sql).all(...(params as never[])) as T[]),
    get: async <T>(sql: string, params: readonly unknown[] = []) =>
      attempt(() => (prepare(sql).get(...(params as never[])) ?? undefined) as T | undefined),
    run: async (sql: string, params: readonly unknown[] = []) => attempt(() => prepare(sql).run(...(params as never[])).changes),
    // Database.run parses a script statement by statement, as SQLite does, and stops at the first that fails.
    exec: async (script) => attempt(() => void database.run(script)),
  };
  const control = (sql: string): void => {
    options.trace?.(sql);
    attempt(() => void prepare(sql).run());
  };
  const Transactions = options.groupCommit === false ? SerialTransactions : GroupCommitQueue;
  const queue = new Transactions(control, db, checkpoints?.committed, WriteLane.of(file));
  return {
    ...db,
    transaction: (fn) => queue.run("write", fn),
    snapshot: (fn) => queue.run("read", fn),
    watchCommits: (onHint) => watchCommits(file, onHint),
    close: async () => {
      // The thread stops first: no checkpoint runs on this file after its owner has closed it.
      await checkpoints?.stop();
      // Any limit from 0 up makes the last connection's close truncate a kept WAL after its checkpoint.
      if (Bun.file(`${file}-wal`).size > KEPT_WAL_MAX_BYTES) database.run("PRAGMA journal_size_limit = 0");
      // A statement left unfinalized turns the close into a deferred one that empties the WAL whatever was
      // asked above: finalized first, the connection closes here and now, checkpoint included.
      for (const statement of statements.values()) statement.finalize();
      statements.clear();
      database.close(false);
    },
  };
};
