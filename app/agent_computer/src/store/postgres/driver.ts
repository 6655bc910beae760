import { AppError } from "../../errors.ts";
import { UniqueViolation } from "../port.ts";
import type { Db, Driver } from "../sql/db.ts";
import { MIGRATION_LOCK_WAIT } from "../sql/migrate.ts";
import { ANSWER_DEADLINE_MS, AnswerWatch, noAnswerError } from "./answer-watch.ts";
import { classifyPostgresError, invalidUrlSetting } from "./error-mapping.ts";
import { BatchSignal, PostgresGroupCommit, type RunTransaction } from "./group-commit.ts";
import { listenNeedsDirectConnection, type PostgresTarget, postgresTarget, SET_LOCAL_LIMITS } from "./pooling.ts";
import { SESSION_SETTINGS } from "./session-settings.ts";
import { attemptsUsedUp, type TransactionPhase, transientFailure } from "./transient.ts";

/**
 * Runs of a transaction that failed transiently and was rolled back whole (deadlock victim, server restarting or
 * full, connection lost before COMMIT): at most MAX_ATTEMPTS, the pauses between them doubling from about 50 ms
 * to at most PAUSE_CAP_MS (4.5 s in all at most), so a server restart of a few seconds is ridden out while a
 * command still answers within seconds when the server stays away.
 */
const MAX_ATTEMPTS = 8;
const PAUSE_CAP_MS = 1_500;
const backoffMs = (attemptNo: number): number => Math.min(PAUSE_CAP_MS, 25 * 2 ** attemptNo) * (0.5 + Math.random() / 2);

/**
 * The passing states first (transient.ts: what happened, whether anything was written), then what the failure
 * says about the environment (error-mapping.ts: login, database, TLS, disk, an unreachable server).
 */
type Classify = (error: unknown, phase?: TransactionPhase) => Promise<unknown>;
const classifierFor =
  (url: string): Classify =>
  async (error, phase) => {
    if (error instanceof AppError || error instanceof UniqueViolation || error instanceof BatchSignal) return error;
    return transientFailure(error, phase)?.error ?? classifyPostgresError(error, url);
  };

/** The driver error behind a STORE_UNAVAILABLE that a statement inside the transaction raised, if it was transient. */
const transientCause = (error: unknown): unknown =>
  error instanceof AppError && error.code === "STORE_UNAVAILABLE" && transientFailure(error.cause) ? error.cause : undefined;

type Runner = { unsafe: (sql: string, params?: unknown[]) => Promise<unknown> };

/**
 * How a failure inside a write batch counts (group-commit.ts): a transient one that rolled everything back
 * re-runs the batch; one that only ran out of its lock or statement time is its call's alone, and costly to
 * repeat; anything else (a refusal, a constraint) is its call's own.
 */
const batchFailureKind = (error: unknown): "batch" | "costly" | "call" => {
  const transient = transientFailure(transientCause(error) ?? error);
  if (!transient) return "call";
  return transient.retryable ? "batch" : "costly";
};

/**
 * Runs `operation` again after a transient failure that rolled it back (transient.ts), up to MAX_ATTEMPTS, with
 * a growing pause; anything else, or the last failure, is thrown classified. `at.phase` is set by the operation
 * once its COMMIT is under way: a failure from then on is never re-run, its outcome being unknown.
 */
const retrying = async <T>(
  operation: (at: { phase: TransactionPhase }) => Promise<T>,
  classify: Classify,
  closed: () => boolean,
  watch: AnswerWatch,
  pooled: boolean,
): Promise<T> => {
  for (let attemptNo = 1; ; attemptNo++) {
    const at: { phase: TransactionPhase } = { phase: "before_commit" };
    const generation = watch.generation;
    try {
      return await operation(at);
    } catch (caught) {
      // Cut off by the answer watch: the failure is the silence, never re-run (it would only wait again).
      const error = watch.generation === generation ? caught : noAnswerError(watch.deadlineMs, pooled);
      if (error instanceof AppError && !transientCause(error)) throw error;
      const transient = transientFailure(transientCause(error) ?? error, at.phase);
      if (!transient) throw await classify(error, at.phase);
      // A pool closed by its owner fails every statement as "connection closed": nothing transient about it.
      if (!transient.retryable || closed()) throw transient.error;
      if (attemptNo >= MAX_ATTEMPTS) throw attemptsUsedUp(transient, attemptNo);
      await Bun.sleep(backoffMs(attemptNo));
    }
  }
};

type Around = <T>(statement: () => Promise<T>) => Promise<T>;
const once: Around = (statement) => statement();

/** `around` wraps each statement: the statements of a transaction run once (the transaction is what is re-run). */
const wrap = (
  runner: Runner,
  classify: Classify,
  watch: AnswerWatch,
  around: Around = once,
  trace?: (sql: string) => void,
): Db => {
  const query = <T>(sql: string, params: readonly unknown[] = []): Promise<T[] & { count: number }> =>
    around(async () => {
      trace?.(sql);
      try {
        return (await watch.track(runner.unsafe(sql, [...params]))) as T[] & { count: number };
      } catch (error) {
        throw await classify(error);
      }
    });
  return {
    dialect: "postgres",
    forUpdate: " FOR UPDATE",
    all: async <T>(sql: string, params?: readonly unknown[]) => [...(await query<T>(sql, params))],
    get: async <T>(sql: string, params?: readonly unknown[]) => (await query<T>(sql, params))[0],
    run: async (sql: string, params?: readonly unknown[]) => (await query(sql, params)).count ?? 0,
    // Without parameters Bun.SQL sends a simple query, which may hold several statements; the server parses it.
    exec: (script) =>
      around(async () => {
        trace?.(script);
        try {
          await watch.track(runner.unsafe(script));
        } catch (error) {
          throw await classify(error);
        }
      }),
  };
};

const connect = ({ url, pooled }: PostgresTarget) => {
  try {
    // Bun.SQL, not `import { SQL } from "bun"`: the bundler hoists that import and would load the
    // PostgreSQL client into every binary's start-up, even on the SQLite default.
    // Through a transaction pooler neither start-up parameters nor named prepared statements survive the
    // transaction (pooling.ts): the limits are set in each transaction instead, and statements go unnamed.
    const session = pooled ? { prepare: false } : { connection: { ...SESSION_SETTINGS } };
    return new Bun.SQL({ url, max: 4, idleTimeout: 30, connectionTimeout: 5, ...session });
  } catch (error) {
    throw invalidUrlSetting(error, url);
  }
};

export interface PostgresOptions {
  /** Hears every statement this driver sends, BEGIN and COMMIT aside: for tests that count round trips. */
  trace?: (statement: string) => void;
  /** How long a connection may stay silent while a statement waits (answer-watch.ts); tests shorten it. */
  answerDeadlineMs?: number;
}

export const openPostgres = (rawUrl: string, options: PostgresOptions = {}): Driver => {
  const target = postgresTarget(rawUrl);
  const { url, pooled } = target;
  const { trace } = options;
  const classify = classifierFor(url);
  let sql = connect(target);
  let closed = false;
  const isClosed = () => closed;
  // A pool whose connection went silent is closed, which fails at once what waits on it; a fresh one serves the rest.
  const watch = new AnswerWatch(options.answerDeadlineMs ?? ANSWER_DEADLINE_MS, () => {
    if (closed) return;
    const silent = sql;
    sql = connect(target);
    void silent.close({ timeout: 0 }).catch(() => undefined);
  });
  // Without parameters Bun.SQL sends a simple query (several statements allowed): the call keeps that shape.
  const current: Runner = {
    unsafe: (statement, params) => (params === undefined ? sql.unsafe(statement) : sql.unsafe(statement, params)),
  };
  // Statements outside a transaction (the migration runner's count and CREATE … IF NOT EXISTS) are re-run like
  // a transaction after a transient failure, so every such statement must be safe to repeat.
  const db = wrap(current, classify, watch, (statement) => retrying(statement, classify, isClosed, watch, pooled), trace);
  const begin = <T>(mode: string, writes: boolean, fn: (db: Db, tx: Runner) => Promise<T>): Promise<T> =>
    retrying(
      async (at) =>
        (await watch.track(
          sql.begin(mode, async (tx) => {
            if (pooled) await watch.track((tx as unknown as Runner).unsafe(SET_LOCAL_LIMITS));
            const result = await fn(wrap(tx as unknown as Runner, classify, watch, once, trace), tx as unknown as Runner);
            // Bun.SQL sends COMMIT once this callback returns: a failure from here on came from the COMMIT, and
            // leaves a write in doubt (a read-only snapshot has nothing to doubt and is simply read again).
            if (writes) at.phase = "commit";
            return result;
          }),
        )) as T,
      classify,
      isClosed,
      watch,
      pooled,
    );
  const runBatch: RunTransaction = (body) =>
    begin("ISOLATION LEVEL READ COMMITTED", true, (txDb, tx) =>
      body(txDb, async (control) => {
        try {
          await tx.unsafe(control);
        } catch (error) {
          throw await classify(error);
        }
      }),
    );
  const writes = new PostgresGroupCommit(runBatch, batchFailureKind);
  let listener: InstanceType<typeof Bun.SQL> | undefined;
  return {
    ...db,
    pooled,
    transaction: (fn, options) => writes.run(fn, options),
    snapshot: (fn) => begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", false, fn),
    ...(pooled ? {} : { withAdvisoryLock: advisoryLock(() => sql, classify) }),
    withoutAnswerDeadline: (fn) => watch.unwatched(fn),
    // Notifications sent while the listener reconnects are lost; onlisten re-runs then, so callers re-poll. The
    // listener has a pool of its own, idle by design, which the answer watch never closes.
    listen: async (channel, onHint) => {
      if (pooled) throw listenNeedsDirectConnection();
      listener ??= connect(target);
      const subscription = await listener.listen(channel, onHint, onHint);
      return () => subscription.unlisten();
    },
    close: async () => {
      closed = true;
      watch.stop();
      await Promise.all([sql.close({ timeout: 1 }), listener?.close({ timeout: 1 })]);
    },
  };
};

/** A session advisory lock on a connection of its own: a direct connection only (pooling.ts). */
const advisoryLock =
  (pool: () => InstanceType<typeof Bun.SQL>, classify: Classify): NonNullable<Driver["withAdvisoryLock"]> =>
  async (key, fn) => {
    const locker = await pool()
      .reserve()
      .catch(async (error: unknown) => Promise.reject(await classify(error)));
    try {
      // The holder may be applying a long migration: wait for it longer than for a row, and without the
      // statement limit; the session's own limits come back before the connection returns to the pool.
      await locker
        .unsafe(`SET lock_timeout = '${MIGRATION_LOCK_WAIT}'; SET statement_timeout = 0`)
        .catch(async (error: unknown) => Promise.reject(await classify(error)));
      try {
        await locker
          .unsafe("SELECT pg_advisory_lock($1)", [key])
          .catch(async (error: unknown) => Promise.reject(await classify(error)));
        try {
          return await fn();
        } finally {
          // Ending the session would release the lock too; unlocking hands it on before the connection is reused.
          await locker.unsafe("SELECT pg_advisory_unlock($1)", [key]).catch(() => undefined);
        }
      } finally {
        await locker.unsafe("RESET lock_timeout; RESET statement_timeout").catch(() => undefined);
      }
    } finally {
      await locker.release();
    }
  };
