// Restores a backup (backup.ts) into a store that holds nothing yet, then opens it as every command does, which
// applies the migrations this build has and the backup lacks. Refused, with nothing changed, when the target is
// not empty: a SQLite state directory with anything in it, a PostgreSQL database with any table.
import { constants, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { runPgTool } from "../../adapters/pg-tools.ts";
import { AppError } from "../../errors.ts";
import { ensurePrivateDir, ensurePrivateFile } from "../../local/private-files.ts";
import { resolvePaths } from "../../paths.ts";
import { storeDialect } from "../dialect.ts";
import { openStore } from "../open.ts";
import { inspectStore, postgresLocation, postgresUrlOf } from "./inspect.ts";
import { pgToolError } from "./pg-tool-errors.ts";

const PG_TOOL_TIMEOUT_MS = 3_600_000;

export interface RestoreResult {
  dialect: "sqlite" | "postgres";
  from: string;
  /** Where it went: the SQLite file, or the PostgreSQL host and database. */
  target: string;
  /** Migrations recorded after opening (the backup's, plus any this build applied on top). */
  migrations: number;
}

type Kind = "sqlite" | "pg_dump" | "other";

const kindOf = async (from: string): Promise<Kind> => {
  const file = Bun.file(from);
  if (!(await file.exists())) throw new AppError("NOT_FOUND", `--from: ${from} does not exist`);
  const head = Buffer.from(await file.slice(0, 16).arrayBuffer()).toString("latin1");
  if (head === "SQLite format 3\u0000") return "sqlite";
  if (head.startsWith("PGDMP")) return "pg_dump";
  return "other";
};

const refuseKind = (from: string, kind: Kind, dialect: "sqlite" | "postgres"): never => {
  if (kind === "pg_dump") {
    throw new AppError("INVALID_INPUT", `--from: ${from} is a pg_dump archive, and the store here is SQLite`, {
      hint: "set AGENT_COMPUTER_DATABASE_URL to an empty PostgreSQL database to restore it there",
    });
  }
  if (kind === "sqlite") {
    throw new AppError("INVALID_INPUT", `--from: ${from} is a SQLite backup, and the store here is PostgreSQL`, {
      hint: "unset AGENT_COMPUTER_DATABASE_URL and set AGENT_COMPUTER_HOME to an empty directory to restore it there",
    });
  }
  throw new AppError("INVALID_INPUT", `--from: ${from} is not a backup made by agent-computer-admin backup (${dialect})`);
};

/** The backup is a whole agent-computer store: it passes quick_check and records its migrations. */
const checkSqliteBackup = async (from: string): Promise<void> => {
  const { Database } = await import("bun:sqlite");
  const db = new Database(from, { readonly: true });
  try {
    const check = db.prepare("PRAGMA quick_check").get() as { quick_check?: string } | null;
    const recorded = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (check?.quick_check !== "ok" || !recorded) {
      throw new AppError("INVALID_INPUT", `--from: ${from} is a SQLite file but not an intact agent-computer store`);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("INVALID_INPUT", `--from: ${from} cannot be read as a SQLite database`);
  } finally {
    db.close();
  }
};

const opensAndMigrates = async (env: Record<string, string | undefined>): Promise<number> => {
  await (await openStore(env)).close();
  return (await inspectStore(env)).applied.length;
};

const restoreSqlite = async (env: Record<string, string | undefined>, from: string): Promise<RestoreResult> => {
  const { stateDir, sqliteFile } = resolvePaths(env);
  const existed = existsSync(stateDir);
  const entries = existed ? readdirSync(stateDir) : [];
  if (entries.length > 0) {
    throw new AppError(
      "CONFLICT",
      `the state directory ${stateDir} is not empty (${entries.length} entr${entries.length === 1 ? "y" : "ies"}, e.g. ${entries.slice(0, 3).join(", ")}); nothing was changed`,
      { hint: "restore into a new, empty directory: AGENT_COMPUTER_HOME=/path/to/new-dir agent-computer-admin restore --from …" },
    );
  }
  await checkSqliteBackup(from);
  if (!existed) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  ensurePrivateDir(stateDir);
  const partial = `${sqliteFile}.restoring`;
  try {
    copyFileSync(from, partial, constants.COPYFILE_EXCL);
    ensurePrivateFile(partial);
    renameSync(partial, sqliteFile);
    return { dialect: "sqlite", from, target: sqliteFile, migrations: await opensAndMigrates(env) };
  } catch (error) {
    // Back to how it was: the directory empty (or gone, when this made it).
    for (const name of readdirSync(stateDir)) rmSync(`${stateDir}/${name}`, { recursive: true, force: true });
    if (!existed) rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
};

const restorePostgres = async (env: Record<string, string | undefined>, from: string): Promise<RestoreResult> => {
  const url = postgresUrlOf(env);
  const { openPostgres } = await import("../postgres/driver.ts");
  const driver = openPostgres(url);
  let tables: number;
  try {
    const row = await driver.get<{ n: unknown }>(
      "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    tables = Number(row?.n ?? 0);
  } finally {
    await driver.close().catch(() => undefined);
  }
  const location = postgresLocation(url);
  if (tables > 0) {
    throw new AppError("CONFLICT", `the database ${location} is not empty (${tables} tables); nothing was changed`, {
      hint: "restore into a new database: createdb <name>, then AGENT_COMPUTER_DATABASE_URL=postgres://…/<name>",
    });
  }
  const database = decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
  const outcome = await runPgTool(
    "pg_restore",
    ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--dbname", database, from],
    url,
    { path: env.PATH, timeoutMs: PG_TOOL_TIMEOUT_MS },
  );
  if (outcome.kind !== "ok") {
    throw pgToolError("pg_restore", outcome, `pg_restore --no-owner --single-transaction --dbname <database> ${from}`);
  }
  return { dialect: "postgres", from, target: location, migrations: await opensAndMigrates(env) };
};

export const restoreStore = async (env: Record<string, string | undefined>, from: string): Promise<RestoreResult> => {
  const dialect = storeDialect(env);
  const kind = await kindOf(from);
  if (dialect === "sqlite" && kind === "sqlite") return restoreSqlite(env, from);
  if (dialect === "postgres" && kind === "pg_dump") return restorePostgres(env, from);
  return refuseKind(from, kind, dialect);
};
