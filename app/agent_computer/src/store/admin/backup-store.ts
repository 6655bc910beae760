// A backup of the store the environment names, taken while it is in use. SQLite: VACUUM INTO from a connection of
// its own, one read transaction, so the copy is the database as of one commit whatever writers do meanwhile
// (their commits wait for nothing: WAL readers never block writers). PostgreSQL: pg_dump's custom format, one
// snapshot too. Either way the file is created 0600 first (mail is private) and is never an existing file.
import { closeSync, constants, existsSync, openSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { runPgTool } from "../../adapters/pg-tools.ts";
import { AppError } from "../../errors.ts";
import { resolvePaths } from "../../paths.ts";
import { storeDialect } from "../dialect.ts";
import { postgresLocation, postgresUrlOf } from "./inspect.ts";
import { pgToolError } from "./pg-tool-errors.ts";

/** A dump of a large database takes a while; past this something is wrong. */
const PG_TOOL_TIMEOUT_MS = 3_600_000;

export interface BackupResult {
  dialect: "sqlite" | "postgres";
  /** What was backed up: the SQLite file, or the PostgreSQL host and database. */
  source: string;
  file: string;
  bytes: number;
  method: "vacuum_into" | "pg_dump";
}

/** The new, empty, private file a backup is written into; refuses an existing one. */
const createTarget = (to: string): void => {
  if (!existsSync(dirname(to))) {
    throw new AppError("INVALID_INPUT", `--to: the directory ${dirname(to)} does not exist`);
  }
  try {
    closeSync(openSync(to, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") {
      throw new AppError("CONFLICT", `--to: ${to} already exists; a backup never overwrites a file`, {
        hint: "name a new file (e.g. with the date in it), or move the old one away first",
      });
    }
    throw new AppError("INVALID_INPUT", `--to: cannot create ${to} (${(error as { code?: string }).code ?? "error"})`);
  }
};

const backupSqlite = async (env: Record<string, string | undefined>, to: string): Promise<BackupResult> => {
  const { sqliteFile } = resolvePaths(env);
  if (!existsSync(sqliteFile)) {
    throw new AppError("NOT_FOUND", `no store at ${sqliteFile}: nothing to back up`, {
      hint: "set AGENT_COMPUTER_HOME (or AGENT_COMPUTER_DATABASE_URL) to the store you mean",
    });
  }
  createTarget(to);
  const { Database } = await import("bun:sqlite");
  const db = new Database(sqliteFile, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.prepare("VACUUM INTO ?1").run(to);
  } catch (error) {
    rmSync(to, { force: true });
    throw error;
  } finally {
    db.close();
  }
  return { dialect: "sqlite", source: sqliteFile, file: to, bytes: statSync(to).size, method: "vacuum_into" };
};

const backupPostgres = async (env: Record<string, string | undefined>, to: string): Promise<BackupResult> => {
  const url = postgresUrlOf(env);
  createTarget(to);
  // pg_dump opens --file for writing without O_CREAT|O_EXCL: it writes into the 0600 file made above.
  const outcome = await runPgTool("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", "--file", to], url, {
    path: env.PATH,
    timeoutMs: PG_TOOL_TIMEOUT_MS,
  });
  if (outcome.kind !== "ok") {
    rmSync(to, { force: true });
    throw pgToolError("pg_dump", outcome, `pg_dump --format=custom --file ${to}`);
  }
  return { dialect: "postgres", source: postgresLocation(url), file: to, bytes: statSync(to).size, method: "pg_dump" };
};

export const backupStore = (env: Record<string, string | undefined>, to: string): Promise<BackupResult> =>
  storeDialect(env) === "postgres" ? backupPostgres(env, to) : backupSqlite(env, to);
