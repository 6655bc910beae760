// A connection pooler in transaction mode (PgBouncer's pool_mode = transaction) between the commands and the
// server: what a team with hundreds of short-lived agent calls puts in front of PostgreSQL. Such a pooler hands
// every transaction whatever server connection is free, so nothing of a session lasts beyond one transaction:
// start-up parameters, SET, named prepared statements (PgBouncer before 1.21), session advisory locks, LISTEN.
// The URL says so itself, with the pooler's own setting name: ?pool_mode=transaction (removed before the URL
// reaches the driver). Nothing is detected: a pooler that is not declared gets a direct connection's start-up
// parameters, which PgBouncer refuses by name.
import { AppError } from "../../errors.ts";
import { SESSION_SETTINGS } from "./session-settings.ts";

export interface PostgresTarget {
  /** The URL the driver connects to, without pool_mode. */
  url: string;
  /** Through a transaction-pooling pooler: every transaction sets its own limits, nothing else is kept. */
  pooled: boolean;
}

const PARAMETER = "pool_mode";

export const postgresTarget = (url: string): PostgresTarget => {
  const parsed = URL.parse(url);
  const mode = parsed?.searchParams.get(PARAMETER);
  if (!parsed || mode === null || mode === undefined) return { url, pooled: false };
  if (mode !== "transaction" && mode !== "session") {
    throw new AppError(
      "CONFIG_INVALID",
      `AGENT_COMPUTER_DATABASE_URL has ${PARAMETER}=${mode}; it must be transaction or session`,
      {
        hint: "pool_mode=transaction when the URL points at PgBouncer in transaction pooling mode; leave it out for a direct connection",
        details: { variable: "AGENT_COMPUTER_DATABASE_URL" },
      },
    );
  }
  parsed.searchParams.delete(PARAMETER);
  return { url: parsed.toString(), pooled: mode === "transaction" };
};

/** The session limits as the first statement of a pooled transaction: SET LOCAL lasts exactly as long as it. */
export const SET_LOCAL_LIMITS = Object.entries(SESSION_SETTINGS)
  .map(([name, value]) => `SET LOCAL ${name} = '${value}'`)
  .join("; ");

/** What LISTEN through a transaction pooler would do: hear nothing, silently. Refused with the reason instead. */
export const listenNeedsDirectConnection = (): AppError =>
  new AppError(
    "CONFIG_INVALID",
    "LISTEN needs a direct connection to PostgreSQL: AGENT_COMPUTER_DATABASE_URL says pool_mode=transaction, and a transaction pooler hands each transaction a different server connection, so notifications would never arrive",
    {
      hint: "point this worker at the PostgreSQL server itself (not PgBouncer) to be woken at once; through the pooler it polls instead",
      details: { variable: "AGENT_COMPUTER_DATABASE_URL" },
    },
  );
