// What agent-computer-admin doctor asks of the store without changing it: can it be reached, which migrations it
// records against the ones this build carries, and (PostgreSQL) the server's clock. Unlike openStore it never
// creates or migrates anything: a missing SQLite file is reported, not made.
import { existsSync } from "node:fs";
import { hostName } from "../../adapters/local-host.ts";
import { AppError } from "../../errors.ts";
import { resolvePaths } from "../../paths.ts";
import { storeDialect } from "../dialect.ts";
import type { ClockSample } from "../server-clock.ts";

export interface StoreInspection {
  dialect: "sqlite" | "postgres";
  /** The SQLite file, or the PostgreSQL URL's host and database (never its password). */
  location: string;
  /** false: the SQLite file does not exist yet (it is created at first use). */
  exists: boolean;
  applied: number[];
  registered: number[];
  /** This host's name, as workers record theirs. */
  host: string;
  /** Workers that reported within WORKER_SEEN_MS, on any host. */
  workers: { host: string; pid: number; url: string; lastSeenAt: number }[];
  /** PostgreSQL: this host's clock around the server's clock_timestamp(). */
  clock?: ClockSample;
}

/** A worker reports every few seconds; one silent for longer than this is gone. */
export const WORKER_SEEN_MS = 30_000;

type Reader = { all<T>(sql: string, params?: readonly unknown[]): Promise<T[]> };

const liveWorkers = async (db: Reader, now: number): Promise<StoreInspection["workers"]> => {
  try {
    const rows = await db.all<Record<string, unknown>>(
      "SELECT host, pid, url, last_seen_at FROM automation_workers WHERE stopped_at IS NULL AND last_seen_at >= $1",
      [now - WORKER_SEEN_MS],
    );
    return rows.map((r) => ({
      host: String(r.host),
      pid: Number(r.pid),
      url: String(r.url),
      lastSeenAt: Number(r.last_seen_at),
    }));
  } catch {
    // A store older than the automation tables has no workers to report.
    return [];
  }
};

const appliedVersions = async (db: Reader): Promise<number[]> => {
  try {
    return (await db.all<{ version: unknown }>("SELECT version FROM schema_migrations ORDER BY version")).map((r) =>
      Number(r.version),
    );
  } catch (error) {
    if (/schema_migrations/.test(String((error as Error).message)) || (error as { errno?: unknown }).errno === "42P01") return [];
    throw error;
  }
};

const inspectSqlite = async (
  env: Record<string, string | undefined>,
  now: () => number,
): Promise<Omit<StoreInspection, "host">> => {
  const { sqliteFile } = resolvePaths(env);
  const { sqliteMigrations } = await import("../sqlite/migration-set.ts");
  const registered = sqliteMigrations.map((m) => m.version);
  if (!existsSync(sqliteFile))
    return { dialect: "sqlite", location: sqliteFile, exists: false, applied: [], registered, workers: [] };
  const { Database } = await import("bun:sqlite");
  const db = new Database(sqliteFile, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const reader: Reader = {
      all: async <T>(sql: string, params: readonly unknown[] = []) =>
        db.prepare(sql.replace(/\$(\d+)/g, "?$1")).all(...(params as never[])) as T[],
    };
    const applied = await appliedVersions(reader);
    return {
      dialect: "sqlite",
      location: sqliteFile,
      exists: true,
      applied,
      registered,
      workers: await liveWorkers(reader, now()),
    };
  } finally {
    db.close();
  }
};

/** AGENT_COMPUTER_DATABASE_URL when it is a PostgreSQL URL; refused as openStore refuses it otherwise. */
export const postgresUrlOf = (env: Record<string, string | undefined>): string => {
  const url = env.AGENT_COMPUTER_DATABASE_URL ?? "";
  if (!/^postgres(ql)?:$/.test(URL.parse(url)?.protocol ?? "")) {
    throw new AppError("CONFIG_INVALID", "AGENT_COMPUTER_DATABASE_URL is not a postgres:// or postgresql:// URL", {
      hint: "unset it to use the embedded SQLite store, or set it to postgres://user:password@host:port/database",
      details: { variable: "AGENT_COMPUTER_DATABASE_URL" },
    });
  }
  return url;
};

/** The URL as a person may see it: host, port and database, no user or password. */
export const postgresLocation = (rawUrl: string): string => {
  const url = URL.parse(rawUrl);
  return url ? `postgres://${url.host}${url.pathname}` : "postgres://(unparsable URL)";
};

const inspectPostgres = async (
  env: Record<string, string | undefined>,
  now: () => number,
): Promise<Omit<StoreInspection, "host">> => {
  const url = postgresUrlOf(env);
  const [{ openPostgres }, { postgresMigrations }] = await Promise.all([
    import("../postgres/driver.ts"),
    import("../postgres/migration-set.ts"),
  ]);
  const driver = openPostgres(url);
  try {
    const applied = await appliedVersions(driver);
    // The connection is open now: the next round trip measures the network, not the connecting.
    const sentAt = now();
    const row = await driver.get<{ now: unknown }>("SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now");
    const answeredAt = now();
    const serverAt = Number(row?.now);
    return {
      dialect: "postgres",
      location: postgresLocation(url),
      exists: true,
      applied,
      registered: postgresMigrations.map((m) => m.version),
      // Workers report their heartbeat in the server's time (store/server-clock.ts), so it is judged by it.
      workers: await liveWorkers(driver, serverAt),
      clock: { sentAt, answeredAt, serverAt },
    };
  } finally {
    await driver.close().catch(() => undefined);
  }
};

/** Looks at the store the environment names. `now` is this host's clock (a test may shift it). */
export const inspectStore = async (
  env: Record<string, string | undefined>,
  now: () => number = Date.now,
): Promise<StoreInspection> => {
  const [inspection, host] = await Promise.all([
    storeDialect(env) === "postgres" ? inspectPostgres(env, now) : inspectSqlite(env, now),
    hostName(),
  ]);
  return { ...inspection, host };
};
