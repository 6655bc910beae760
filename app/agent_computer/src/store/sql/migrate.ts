import { UniqueViolation } from "../port.ts";
import type { Db, Driver, Migration } from "./db.ts";

/** The PostgreSQL advisory lock every migration runner of one database takes (any fixed 64-bit number). */
const MIGRATION_LOCK = 7411742;

const SCHEMA_MIGRATIONS =
  "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)";

/**
 * Applies the registered migrations not yet recorded in schema_migrations, in the order registered. Each file
 * runs whole, as one script the database itself parses (so function bodies and string literals may hold
 * semicolons), in a transaction of its own together with its schema_migrations row: a failing migration
 * leaves the schema at the one before it, throws, and is tried again by the next opener.
 *
 * Concurrent runners: on PostgreSQL one session advisory lock is held around the whole run, so one process
 * applies every pending migration while the others wait and then find nothing left; on SQLite each migration's
 * BEGIN IMMEDIATE serialises the writers. Either way a transaction checks that its version is still unrecorded
 * before applying it.
 */
export const migrate = async (driver: Driver, migrations: readonly Migration[]): Promise<void> => {
  await createSchemaMigrations(driver);
  // A count, not the highest version: a database that recorded a later migration before an earlier one was
  // registered (branches landing out of order) still gets the earlier one.
  const current = await driver.get<{ n: unknown }>("SELECT COUNT(*) AS n FROM schema_migrations");
  if (Number(current?.n ?? 0) >= migrations.length) return;
  const applyPending = async (): Promise<void> => {
    for (const migration of migrations) await driver.transaction((db) => applyOnce(db, migration));
  };
  if (driver.withAdvisoryLock) await driver.withAdvisoryLock(MIGRATION_LOCK, applyPending);
  else await applyPending();
};

const applyOnce = async (db: Db, migration: Migration): Promise<void> => {
  if (await db.get("SELECT 1 AS applied FROM schema_migrations WHERE version = $1", [migration.version])) return;
  await db.exec(migration.sql);
  await db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
    migration.version,
    migration.name,
    Date.now(),
  ]);
};

/**
 * Two first openers of a PostgreSQL database may both create the table: the loser of that race gets a unique
 * violation on the catalog, after which the table exists, which is all this asks.
 */
const createSchemaMigrations = async (driver: Driver): Promise<void> => {
  try {
    await driver.exec(SCHEMA_MIGRATIONS);
  } catch (error) {
    if (!(error instanceof UniqueViolation)) throw error;
  }
};
