import type { Db, Driver, Migration } from "./db.ts";

/** The PostgreSQL advisory lock every migration runner of one database takes (any fixed 64-bit number). */
export const MIGRATION_LOCK = 7411742;

/** How long an opener waits for another one's migrations (which run without a statement time limit). */
export const MIGRATION_LOCK_WAIT = "120s";

const SCHEMA_MIGRATIONS =
  "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)";

/**
 * Applies the registered migrations not yet recorded in schema_migrations, in the order registered. Each file
 * runs whole, as one script the database itself parses (so function bodies and string literals may hold
 * semicolons), in a transaction of its own together with its schema_migrations row: a failing migration
 * leaves the schema at the one before it, throws, and is tried again by the next opener.
 *
 * Concurrent runners: on PostgreSQL everything that changes the schema, schema_migrations itself included,
 * runs under one session advisory lock, so one process applies every pending migration while the others wait
 * and then find nothing left (two CREATE TABLE IF NOT EXISTS racing outside it collide in the catalog); on
 * SQLite each migration's BEGIN IMMEDIATE serialises the writers. Either way a transaction checks that its
 * version is still unrecorded before applying it. Through a transaction pooler (postgres/pooling.ts) the pending
 * migrations are applied together, in one transaction under a transaction advisory lock: one that fails leaves
 * the schema where it was before all of them.
 */
export const migrate = async (driver: Driver, migrations: readonly Migration[]): Promise<void> => {
  // A migration may run long on purpose (it lifts statement_timeout): no client-side answer deadline meanwhile.
  const unbounded = <T>(fn: () => Promise<T>): Promise<T> =>
    driver.withoutAnswerDeadline ? driver.withoutAnswerDeadline(fn) : fn();
  const applyPending = (): Promise<void> =>
    unbounded(async () => {
      await driver.exec(SCHEMA_MIGRATIONS);
      for (const migration of migrations) await driver.transaction((db) => applyOnce(db, migration));
    });
  if (driver.pooled) {
    // Through a transaction pooler a session lock would stay behind on a server connection that serves others:
    // everything pending is applied in one transaction under a transaction-level lock instead.
    if ((await appliedCount(driver)) >= migrations.length) return;
    await unbounded(() =>
      driver.transaction(async (db) => {
        await db.exec(`SET LOCAL lock_timeout = '${MIGRATION_LOCK_WAIT}'; SET LOCAL statement_timeout = 0`);
        await db.get("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
        await db.exec(SCHEMA_MIGRATIONS);
        for (const migration of migrations) await applyOnce(db, migration);
      }),
    );
    return;
  }
  if (!driver.withAdvisoryLock) {
    // SQLite: a count first, so an up-to-date store (nearly every open) writes nothing.
    await driver.exec(SCHEMA_MIGRATIONS);
    if ((await appliedCount(driver)) >= migrations.length) return;
    await applyPending();
    return;
  }
  // The read before the lock only spares the lock when nothing is pending; it changes nothing.
  if ((await appliedCount(driver)) >= migrations.length) return;
  await driver.withAdvisoryLock(MIGRATION_LOCK, applyPending);
};

/**
 * How many migrations the database records; 0 before the first one made schema_migrations. A count, not the
 * highest version: a database that recorded a later migration before an earlier one was registered (branches
 * landing out of order) still gets the earlier one.
 */
const appliedCount = async (driver: Driver): Promise<number> => {
  try {
    return Number((await driver.get<{ n: unknown }>("SELECT COUNT(*) AS n FROM schema_migrations"))?.n ?? 0);
  } catch (error) {
    if (isUndefinedTable(error)) return 0;
    throw error;
  }
};

/** PostgreSQL's undefined_table (42P01), SQLite's "no such table". */
const isUndefinedTable = (error: unknown): boolean =>
  (error as { errno?: unknown }).errno === "42P01" || /no such table/i.test((error as Error).message ?? "");

const applyOnce = async (db: Db, migration: Migration): Promise<void> => {
  if (await db.get("SELECT 1 AS applied FROM schema_migrations WHERE version = $1", [migration.version])) return;
  // A migration may rewrite a large table: the session's statement limit is for the commands' own statements.
  if (db.dialect === "postgres") await db.exec("SET LOCAL statement_timeout = 0");
  await db.exec(migration.sql);
  await db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
    migration.version,
    migration.name,
    Date.now(),
  ]);
};
