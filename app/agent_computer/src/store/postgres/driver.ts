import type { Db, Driver } from "../sql/db.ts";
import { classifyPostgresError, invalidUrlSetting, sqlState } from "./errors.ts";

const RETRYABLE = new Set(["40P01", "40001"]); // deadlock detected, serialization failure
const MAX_ATTEMPTS = 5;

type Runner = { unsafe: (sql: string, params?: unknown[]) => Promise<unknown> };

type Classify = (error: unknown) => Promise<unknown>;

const wrap = (runner: Runner, classify: Classify): Db => {
  const query = async <T>(sql: string, params: readonly unknown[] = []): Promise<T[] & { count: number }> => {
    try {
      return (await runner.unsafe(sql, [...params])) as T[] & { count: number };
    } catch (error) {
      throw await classify(error);
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
        throw await classify(error);
      }
    },
  };
};

const connect = (url: string) => {
  try {
    // Bun.SQL, not `import { SQL } from "bun"`: the bundler hoists that import and would load the
    // PostgreSQL client into every binary's start-up, even on the SQLite default.
    return new Bun.SQL({ url, max: 4, idleTimeout: 30, connectionTimeout: 5 });
  } catch (error) {
    throw invalidUrlSetting(error, url);
  }
};

export const openPostgres = (url: string): Driver => {
  const classify: Classify = (error) => classifyPostgresError(error, url);
  const sql = connect(url);
  const db = wrap(sql as unknown as Runner, classify);
  const begin = async <T>(mode: string, fn: (db: Db) => Promise<T>): Promise<T> => {
    for (let attemptNo = 1; ; attemptNo++) {
      try {
        return (await sql.begin(mode, (tx) => fn(wrap(tx as unknown as Runner, classify)))) as T;
      } catch (error) {
        const classified = await classify(error);
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
      const locker = await sql.reserve().catch(async (error: unknown) => Promise.reject(await classify(error)));
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
