import { AppError } from "../errors.ts";
import { resolvePaths } from "../paths.ts";
import { storeDialect } from "./dialect.ts";
import type { Store } from "./port.ts";
import type { Driver, Migration } from "./sql/db.ts";
import { migrate } from "./sql/migrate.ts";
import { reposFor } from "./sql/repos.ts";
import { sendReposFor } from "./sql/send-read-ahead.ts";

// clock_timestamp(), not now(): now() stops at the start of a transaction, and this read must be the moment it answers.
const SERVER_NOW = "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms";

const serverNowOf = async (driver: Driver): Promise<number> => Number((await driver.get<{ ms: number }>(SERVER_NOW))?.ms);

/** Wraps a migrated driver as the store port. */
export const storeOver = (driver: Driver): Store => ({
  dialect: driver.dialect,
  write: (fn, options) => driver.transaction((db) => fn(options?.send ? sendReposFor(db, options.send) : reposFor(db)), options),
  read: (fn) => driver.snapshot((db) => fn(reposFor(db))),
  ...(driver.listen ? { listen: driver.listen } : {}),
  ...(driver.watchCommits ? { watchCommits: driver.watchCommits } : {}),
  ...(driver.dialect === "postgres" ? { serverNow: () => serverNowOf(driver) } : {}),
  close: () => driver.close(),
});

/** How the process will use the store. longLived: a daemon that stays up and writes all day (the worker). */
export interface StoreUse {
  longLived?: boolean;
}

const openDriver = async (
  env: Record<string, string | undefined>,
  use: StoreUse,
): Promise<{ driver: Driver; migrations: readonly Migration[] }> => {
  if (storeDialect(env) === "postgres") {
    const url = env.AGENT_COMPUTER_DATABASE_URL ?? "";
    if (!/^postgres(ql)?:$/.test(URL.parse(url)?.protocol ?? "")) {
      throw new AppError("CONFIG_INVALID", "AGENT_COMPUTER_DATABASE_URL is not a postgres:// or postgresql:// URL", {
        hint: "unset it to use the embedded SQLite store, or set it to postgres://user:password@host:port/database",
        details: { variable: "AGENT_COMPUTER_DATABASE_URL" },
      });
    }
    // Dynamic imports keep the unused driver out of every process.
    const [{ openPostgres }, { postgresMigrations }] = await Promise.all([
      import("./postgres/driver.ts"),
      import("./postgres/migration-set.ts"),
    ]);
    return { driver: openPostgres(url), migrations: postgresMigrations };
  }
  const [{ groupCommitFromEnv, openSqlite }, { sqliteMigrations }] = await Promise.all([
    import("./sqlite/driver.ts"),
    import("./sqlite/migration-set.ts"),
  ]);
  const { stateDir, sqliteFile } = resolvePaths(env);
  try {
    return {
      driver: await openSqlite(sqliteFile, { ...use, groupCommit: groupCommitFromEnv(env) }),
      migrations: sqliteMigrations,
    };
  } catch (error) {
    const { unusableStateDir } = await import("./state-dir.ts");
    throw unusableStateDir(env, stateDir, error) ?? error;
  }
};

/** Opens the store the environment names, creating and migrating it on first use. */
export const openStore = async (env: Record<string, string | undefined>, use: StoreUse = {}): Promise<Store> => {
  const { driver, migrations } = await openDriver(env, use);
  try {
    await migrate(driver, migrations);
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
  return storeOver(driver);
};
