import { AppError } from "../../errors.ts";
import { UniqueViolation } from "../port.ts";
import type { Db, Driver } from "../sql/db.ts";

const RETRYABLE = new Set(["40P01", "40001"]); // deadlock detected, serialization failure
const MAX_ATTEMPTS = 5;

const sqlState = (error: unknown): string => {
  const e = error as { errno?: string; code?: string };
  return e.errno ?? e.code ?? "";
};

const classify = (error: unknown): unknown => {
  if (error instanceof AppError || error instanceof UniqueViolation) return error;
  const state = sqlState(error);
  if (state === "23505") {
    const constraint = (error as { constraint?: string }).constraint ?? (error as Error).message;
    return new UniqueViolation(constraint, { cause: error });
  }
  const code = (error as { code?: string }).code ?? "";
  if (code.startsWith("ERR_POSTGRES_CONNECTION") || /ECONNREFUSED|ENOTFOUND|connection/i.test(code + (error as Error).message)) {
    return new AppError("STORE_UNAVAILABLE", "cannot reach the PostgreSQL store named by AGENT_COMPUTER_DATABASE_URL", {
      hint: "check that the server is up and the URL is right; retry",
      cause: error,
    });
  }
  return error;
};

type Runner = { unsafe: (sql: string, params?: unknown[]) => Promise<unknown> };

const wrap = (runner: Runner): Db => {
  const query = async <T>(sql: string, params: readonly unknown[] = []): Promise<T[] & { count: number }> => {
    try {
      return (await runner.unsafe(sql, [...params])) as T[] & { count: number };
    } catch (error) {
      throw classify(error);
    }
  };
  return {
    dialect: "postgres",
    forUpdate: " FOR UPDATE",
    all: async <T>(sql: string, params?: readonly unknown[]) => [...(await query<T>(sql, params))],
    get: async <T>(sql: string, params?: readonly unknown[]) => (await query<T>(sql, params))[0],
    run: async (sql: string, params?: readonly unknown[]) => (await query(sql, params)).count ?? 0,
    // Without parameters Bun.SQL sends a simple query, which may hold several statements; the server parses it.
    exec: async (script) => {
      try {
        await runner.unsafe(script);
      } catch (error) {
        throw classify(error);
      }
    },
  };
};

export const openPostgres = (url: string): Driver => {
  // Bun.SQL, not `import { SQL } from "bun"`: the bundler hoists that import and would load the
  // PostgreSQL client into every binary's start-up, even on the SQLite default.
  const sql = new Bun.SQL({ url, max: 4, idleTimeout: 30, connectionTimeout: 5 });
  const db = wrap(sql as unknown as Runner);
  const begin = async <T>(mode: string, fn: (db: Db) => Promise<T>): Promise<T> => {
    for (let attemptNo = 1; ; attemptNo++) {
      try {
        return (await sql.begin(mode, (tx) => fn(wrap(tx as unknown as Runner)))) as T;
      } catch (error) {
        const classified = classify(error);
        if (attemptNo < MAX_ATTEMPTS && RETRYABLE.has(sqlState(error))) {
          await Bun.sleep(5 * attemptNo + Math.random() * 20);
          continue;
        }
        throw classified;
      }
    }
  };
  return {
    ...db,
    transaction: (fn) => begin("ISOLATION LEVEL READ COMMITTED", fn),
    snapshot: (fn) => begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", fn),
    withAdvisoryLock: async (key, fn) => {
      const locker = await sql.reserve().catch((error: unknown) => Promise.reject(classify(error)));
      try {
        await locker.unsafe("SELECT pg_advisory_lock($1)", [key]).catch((error: unknown) => Promise.reject(classify(error)));
        try {
          return await fn();
        } finally {
          // Ending the session would release the lock too; unlocking hands it on before the connection is reused.
          await locker.unsafe("SELECT pg_advisory_unlock($1)", [key]).catch(() => undefined);
        }
      } finally {
        await locker.release();
      }
    },
    // Notifications sent while the listener reconnects are lost; onlisten re-runs then, so callers re-poll.
    listen: async (channel, onHint) => {
      const subscription = await sql.listen(channel, onHint, onHint);
      return () => subscription.unlisten();
    },
    close: () => sql.close({ timeout: 1 }),
  };
};
