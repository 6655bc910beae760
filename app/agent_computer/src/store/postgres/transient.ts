// Failures of the moment rather than of the request: the server starting, stopping or full, a lost connection,
// a deadlock, a lock or statement that ran out of time. Each becomes STORE_UNAVAILABLE (exit 8, retryable) with
// what happened, whether anything was written and what to do. Connection and configuration errors that no
// retry fixes (a wrong password, an unknown database, TLS, a bad URL) are classified beside this, not here.
import { AppError } from "../../errors.ts";
import { NO_ANSWER_CODE } from "./answer-watch.ts";
import { SESSION_SETTINGS } from "./session-settings.ts";

/** Where in a transaction the failure came: before COMMIT was sent, everything was rolled back. */
export type TransactionPhase = "before_commit" | "commit";

export interface Transient {
  /** Safe to run the whole transaction again: the server rolled it back (or never started it). */
  retryable: boolean;
  error: AppError;
}

const sqlState = (error: unknown): string => String((error as { errno?: unknown }).errno ?? "");
const clientCode = (error: unknown): string => String((error as { code?: unknown }).code ?? "");

/** Bun.SQL's own codes for a connection that closed under a query (the server or the network went away). */
const LOST_CONNECTION_CODES = new Set(["ERR_POSTGRES_CONNECTION_CLOSED", "ERR_POSTGRES_IDLE_TIMEOUT"]);

interface Kind {
  what: string;
  /** A re-run may succeed at once: the cause is gone (a deadlock victim, a restarted server). */
  rerun: boolean;
}

const SERVER_STATES: Record<string, Kind> = {
  "40P01": { what: "the write deadlocked with another transaction", rerun: true },
  "40001": { what: "the write conflicted with a concurrent transaction (serialization failure)", rerun: true },
  "57P01": { what: "the PostgreSQL server ended the connection (shutdown or administrator command)", rerun: true },
  "57P02": { what: "the PostgreSQL server ended the connection (crash shutdown)", rerun: true },
  "57P03": { what: "the PostgreSQL server is starting up or shutting down and accepts no connections yet", rerun: true },
  "53300": { what: "the PostgreSQL server has no free connection (too many clients already)", rerun: true },
  "08000": { what: "the connection to the PostgreSQL server failed", rerun: true },
  "08003": { what: "the connection to the PostgreSQL server does not exist any more", rerun: true },
  "08006": { what: "the connection to the PostgreSQL server failed", rerun: true },
  "25P03": {
    what: `the transaction stayed idle longer than idle_in_transaction_session_timeout (${SESSION_SETTINGS.idle_in_transaction_session_timeout}) and the server ended it`,
    rerun: true,
  },
  // The budgets themselves: waiting again would only double the wait, so these are reported, not re-run.
  "55P03": {
    what: `the store is busy: a row this command writes stayed locked by another transaction for longer than lock_timeout (${SESSION_SETTINGS.lock_timeout})`,
    rerun: false,
  },
  "57014": {
    what: `a statement ran longer than statement_timeout (${SESSION_SETTINGS.statement_timeout}) and the server cancelled it`,
    rerun: false,
  },
};

const kindOf = (error: unknown): Kind | undefined => {
  const state = SERVER_STATES[sqlState(error)];
  if (state) return state;
  // Silence past the answer deadline: waiting again would only wait as long again.
  if (clientCode(error) === NO_ANSWER_CODE) return { what: (error as Error).message, rerun: false };
  if (LOST_CONNECTION_CODES.has(clientCode(error)))
    return { what: "the connection to the PostgreSQL server was lost", rerun: true };
  return undefined;
};

/**
 * The transient failure this error is, or undefined. `phase` says whether COMMIT had been sent: a connection
 * lost before it means the server rolled everything back; lost during it, the write may or may not have landed,
 * and only the caller can find out, so it is never re-run blindly.
 */
export const transientFailure = (error: unknown, phase: TransactionPhase = "before_commit"): Transient | undefined => {
  const kind = kindOf(error);
  if (!kind) return undefined;
  // A deadlock or serialization failure reported at COMMIT still rolled the transaction back.
  const rolledBack = phase === "before_commit" || ["40P01", "40001"].includes(sqlState(error));
  if (!rolledBack) {
    return {
      retryable: false,
      error: new AppError("STORE_UNAVAILABLE", `${kind.what} while committing: the write may or may not have been applied`, {
        hint:
          "check its effect before repeating it (agent-sent-cli lists what was sent; a send repeated with the same " +
          "--idempotency-key is never delivered twice)",
        details: { outcome: "unknown", sqlstate: sqlState(error) || clientCode(error) },
        cause: error,
      }),
    };
  }
  return {
    retryable: kind.rerun,
    error: new AppError("STORE_UNAVAILABLE", `${kind.what}; nothing was written`, {
      hint: "retry in a few seconds; if it persists, check the PostgreSQL server and what holds its locks (pg_stat_activity)",
      details: { outcome: "not_applied", sqlstate: sqlState(error) || clientCode(error) },
      cause: error,
    }),
  };
};

/** The failure after the last permitted re-run, saying how many runs were made. */
export const attemptsUsedUp = (transient: Transient, attempts: number): AppError =>
  new AppError("STORE_UNAVAILABLE", `${transient.error.message} (${attempts} attempts)`, {
    hint: transient.error.hint,
    details: { ...transient.error.details, attempts },
    cause: transient.error.cause,
  });
