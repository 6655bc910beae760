// PostgreSQL's own client programs (pg_dump, pg_restore) for backup and restore: execa with an argument array, a
// timeout and a curated environment. The connection is given through PG* variables only, so the password is never
// in argv (where `ps` shows it) and never in an error: a failure carries pg's last line with the password blanked.
import { execa } from "execa";
import { findProgram } from "./bwrap.ts";

export type PgToolName = "pg_dump" | "pg_restore";

export type PgToolOutcome =
  | { kind: "ok" }
  | { kind: "not_installed"; looked: string }
  | { kind: "failed"; exitCode: number | null; message: string }
  | { kind: "timeout" };

/** The PG* variables libpq reads, from a postgres:// URL (percent-decoded, as libpq decodes a URI). */
export const pgConnectionEnv = (rawUrl: string): Record<string, string> => {
  const url = new URL(rawUrl);
  const env: Record<string, string> = {};
  const host = url.searchParams.get("host") ?? decodeURIComponent(url.hostname);
  if (host) env.PGHOST = host.replace(/^\[(.*)\]$/, "$1");
  if (url.port) env.PGPORT = url.port;
  if (url.username) env.PGUSER = decodeURIComponent(url.username);
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (database) env.PGDATABASE = database;
  const sslmode = url.searchParams.get("sslmode");
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
};

const lastLine = (text: string, secret: string | undefined): string => {
  const line = text.trim().split("\n").at(-1)?.slice(0, 300) ?? "";
  return secret ? line.split(secret).join("***") : line;
};

/** Runs `name args` against the database of `url`; PATH is the caller's, so the operator's pg tools are used. */
export const runPgTool = async (
  name: PgToolName,
  args: readonly string[],
  url: string,
  options: { path: string | undefined; timeoutMs: number },
): Promise<PgToolOutcome> => {
  const program = findProgram(name, undefined, options.path);
  if (!program.path) return { kind: "not_installed", looked: program.looked };
  const connection = pgConnectionEnv(url);
  // Run by the name found on PATH, not its realpath: Debian's pg_dump is a link to a wrapper that picks the
  // client version by the name it was called as.
  const result = await execa(program.looked, [...args], {
    env: { PATH: options.path ?? "/usr/bin:/bin", LC_ALL: "C", ...connection },
    extendEnv: false,
    reject: false,
    timeout: options.timeoutMs,
    stdin: "ignore",
    stdout: "ignore",
    maxBuffer: 1_000_000,
  });
  if (result.timedOut) return { kind: "timeout" };
  if (result.exitCode === 0) return { kind: "ok" };
  return { kind: "failed", exitCode: result.exitCode ?? null, message: lastLine(String(result.stderr), connection.PGPASSWORD) };
};
