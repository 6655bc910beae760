/** Exit codes shared by every binary (spec/00-cli-contract.md rule 5). */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  auth: 3,
  conflict: 4,
  notFound: 5,
  rateLimited: 6,
  timeout: 7,
  unavailable: 8,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_TABLE =
  "0 ok · 1 unexpected/internal failure · 2 usage or validation error · 3 authentication failed · " +
  "4 conflict or failed precondition · 5 not found · 6 rate limited · 7 timed out · 8 unavailable (retryable)";

/** Every stable error code, with the exit code it maps to and a one-line meaning for --help. */
export const ERROR_CODES = {
  INVALID_INPUT: { exit: EXIT.usage, meaning: "a flag or argument is missing or invalid; nothing was written" },
  AUTH_FAILED: { exit: EXIT.auth, meaning: "the agent token is missing or wrong" },
  RECOVERY_REQUIRED: { exit: EXIT.auth, meaning: "the token was revoked; register with the recovery token" },
  NOT_CHECKED_IN: { exit: EXIT.conflict, meaning: "no live check-in for this agent; run agent-checkin-cli --confirm" },
  WAKE_TOKEN_INVALID: { exit: EXIT.conflict, meaning: "the wake token is unknown, expired or already used" },
  NAME_COLLISION_ACTIVE: { exit: EXIT.conflict, meaning: "the name is held by a live session" },
  FORCE_PRECONDITION_FAILED: { exit: EXIT.conflict, meaning: "the session id you expected is no longer current" },
  REDUCTION_NOT_ALLOWED: { exit: EXIT.conflict, meaning: "capabilities can only be added, never removed" },
  NO_OP_EXPANSION: { exit: EXIT.conflict, meaning: "every capability given is already held" },
  CONFLICT: { exit: EXIT.conflict, meaning: "the object is not in a state that allows this change" },
  UNKNOWN_AGENT: { exit: EXIT.notFound, meaning: "no registered agent has that name" },
  MESSAGE_NOT_FOUND: { exit: EXIT.notFound, meaning: "a message id is not one of this agent's messages; nothing changed" },
  NOT_FOUND: { exit: EXIT.notFound, meaning: "the object does not exist" },
  RATE_LIMITED: { exit: EXIT.rateLimited, meaning: "too many calls; retry after the time given" },
  TIMEOUT: { exit: EXIT.timeout, meaning: "the wait ended before the condition was met" },
  STORE_UNAVAILABLE: { exit: EXIT.unavailable, meaning: "the store is locked or unreachable; retry" },
  UNAVAILABLE: { exit: EXIT.unavailable, meaning: "a required service (worker, Herdr) is not running; retry" },
  INTERNAL: { exit: EXIT.internal, meaning: "an unexpected failure (a bug); details on stderr" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The one error type commands and domain services throw; only the entry point turns it into an exit. */
export class CliError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "CliError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  get exitCode(): ExitCode {
    return ERROR_CODES[this.code].exit;
  }

  toJSON(): { error: Record<string, unknown> } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.hint ? { hint: this.hint } : {}),
        ...(this.details ?? {}),
      },
    };
  }
}

export const isCliError = (error: unknown): error is CliError => error instanceof CliError;
