import type { PgToolName, PgToolOutcome } from "../../adapters/pg-tools.ts";
import { AppError } from "../../errors.ts";

/** What a failed pg_dump or pg_restore means to the operator, with the command to run by hand. */
export const pgToolError = (name: PgToolName, outcome: Exclude<PgToolOutcome, { kind: "ok" }>, byHand: string): AppError => {
  const manual =
    `or run it yourself with the connection in PG* variables (PGHOST, PGPORT, PGUSER, PGDATABASE, and PGPASSWORD ` +
    `rather than a password in argv): ${byHand}`;
  if (outcome.kind === "not_installed") {
    return new AppError("UNAVAILABLE", `${name} was not found on PATH (${outcome.looked})`, {
      hint: `install PostgreSQL's client programs of the server's major version (Debian: apt-get install postgresql-client), ${manual}`,
    });
  }
  if (outcome.kind === "timeout") {
    return new AppError("TIMEOUT", `${name} did not finish within an hour; nothing was kept`, { hint: manual });
  }
  return new AppError("STORE_UNAVAILABLE", `${name} failed (exit ${outcome.exitCode ?? "none"}): ${outcome.message}`, {
    hint: `fix what it says (server reachable, credentials, client version not older than the server's), ${manual}`,
  });
};
