import type { Driver, Migration } from "./db.ts";

/**
 * Applies the numbered migrations not yet recorded, each in its own transaction. Concurrent first
 * commands are safe: SQLite serialises on BEGIN IMMEDIATE, PostgreSQL on an advisory transaction lock.
 */
export const migrate = async (driver: Driver, migrations: readonly Migration[]): Promise<void> => {
  await driver.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
  );
  // Count and maximum together: a database that recorded a later migration before an earlier one was
  // registered (branches landing out of order) still gets the earlier one.
  const current = await driver.get<{ n: unknown }>("SELECT COUNT(*) AS n FROM schema_migrations");
  if (Number(current?.n ?? 0) >= migrations.length) return;
  await driver.transaction(async (db) => {
    if (driver.dialect === "postgres") await db.run("SELECT pg_advisory_xact_lock(7411742)");
    const done = new Set(
      (await db.all<{ version: unknown }>("SELECT version FROM schema_migrations")).map((r) => Number(r.version)),
    );
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      for (const statement of splitStatements(migration.sql)) await db.run(statement);
      await db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
        migration.version,
        migration.name,
        Date.now(),
      ]);
    }
  });
};

/** Migration files hold plain DDL separated by semicolons at line ends (no procedural bodies). */
const splitStatements = (script: string): string[] =>
  script
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter((s) => s !== "");
