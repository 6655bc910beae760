/** Exit codes shared by every binary; every --help prints this table. */
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
  undelivered: 9,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_TABLE =
  "0 ok · 1 internal failure · 2 invalid input · 3 authentication failed · " +
  "4 conflict or failed precondition · 5 not found · 6 rate limited · 7 timed out · 8 unavailable (retryable) · " +
  "9 sent, not delivered";

/** Every stable error code, with the exit code it maps to and a one-line meaning for --help. */
export const ERROR_CODES = {
  INVALID_INPUT: { exit: EXIT.usage, meaning: "a flag or argument is missing or invalid; nothing was written" },
  CONFIG_INVALID: {
    exit: EXIT.usage,
    meaning:
      "an environment setting is unusable (AGENT_COMPUTER_HOME is a file, the database URL is malformed, names an unknown database or asks for TLS the server lacks); the message names it; nothing was written",
  },
  AUTH_FAILED: { exit: EXIT.auth, meaning: "the agent token is missing or wrong" },
  RECOVERY_REQUIRED: { exit: EXIT.auth, meaning: "the token was revoked; register with the recovery token" },
  NOT_CHECKED_IN: { exit: EXIT.conflict, meaning: "no live check-in for this agent; run agent-checkin-cli --confirm" },
  WAKE_TOKEN_INVALID: { exit: EXIT.conflict, meaning: "the wake token is unknown, expired or already used" },
  NAME_COLLISION_ACTIVE: { exit: EXIT.conflict, meaning: "the name is held by a live session" },
  NAME_LOOKALIKE: {
    exit: EXIT.conflict,
    meaning: "a registered name (existing_agent_id) differs only by case or trailing . _ -",
  },
  FORCE_PRECONDITION_FAILED: { exit: EXIT.conflict, meaning: "the session id you expected is no longer current" },
  REDUCTION_NOT_ALLOWED: { exit: EXIT.conflict, meaning: "capabilities can only be added, never removed" },
  NO_OP_EXPANSION: { exit: EXIT.conflict, meaning: "every capability given is already held" },
  CONFLICT: { exit: EXIT.conflict, meaning: "the object is not in a state that allows this change" },
  NOT_A_MEMBER: { exit: EXIT.conflict, meaning: "only a member of the channel may do this; join it first" },
  REFUSED_BY_POLICY: {
    exit: EXIT.conflict,
    meaning: "every recipient's contact policy refuses the sender; nothing was sent",
  },
  IDEMPOTENCY_CONFLICT: {
    exit: EXIT.conflict,
    meaning: "the idempotency key was already used for a different message (body, recipients or thread); nothing was sent",
  },
  RUN_FAILED: {
    exit: EXIT.conflict,
    meaning: "the awaited run ended failed or cancelled, not succeeded (run_id, state and the run are in the error)",
  },
  UNKNOWN_AGENT: { exit: EXIT.notFound, meaning: "no registered agent has that name" },
  CONTROLLER_CONTEXT_MISSING: {
    exit: EXIT.conflict,
    meaning: "not inside a Herdr pane (HERDR_ENV=1, HERDR_PANE_ID) or AGENT_CONTROL_CONTROLLER_ID unset/invalid",
  },
  CONTROLLER_AUTH_FAILED: {
    exit: EXIT.auth,
    meaning: "this caller is not the controller: no credential here, or pane/name/kind/cwd/process differ from acquire",
  },
  CONTROLLER_HELD: {
    exit: EXIT.conflict,
    meaning: "a lease holds this controller id (unexpired, or expired and not released: take it over once its holder is gone)",
  },
  CONTROLLER_FENCED: {
    exit: EXIT.conflict,
    meaning: "a newer acquire/resume/takeover replaced this controller lease, or it was released",
  },
  CONTROLLER_EXPIRED: { exit: EXIT.conflict, meaning: "the controller lease expired; resume it" },
  CONTROLLER_LEASE_CHANGED: {
    exit: EXIT.conflict,
    meaning: "the controller lease is not the one expected (a takeover, resume or renew got there first); re-read it",
  },
  RESERVATION_BUSY: { exit: EXIT.unavailable, meaning: "a reservation lock is held (or indeterminate); retry" },
  TARGET_NOT_LEASED: { exit: EXIT.conflict, meaning: "the target has no active reviewer/writer lease of this controller" },
  RECEIPT_OUTSTANDING: {
    exit: EXIT.conflict,
    meaning: "the target has a reserved or pending receipt; collect or abandon it first",
  },
  IDENTITY_CHANGED: { exit: EXIT.conflict, meaning: "the agent in the leased pane is not the leased identity" },
  AGENT_NOT_SETTLED: {
    exit: EXIT.conflict,
    meaning: "the agent is working, blocked or launching where a settled agent is required",
  },
  CURSOR_MOVED: { exit: EXIT.conflict, meaning: "the agent's state_change_seq is not the one expected (a later turn ran)" },
  WRITER_ADMISSION_REFUSED: { exit: EXIT.conflict, meaning: "a writer admission check failed (details.check names it)" },
  SCOPE_CONFLICT: { exit: EXIT.conflict, meaning: "a held writer lease has the branch, worktree or an overlapping scope" },
  VERIFICATION_REFUSED: {
    exit: EXIT.conflict,
    meaning: "verification cannot start: recipe, lock file or commit fails a check (details.check names it); nothing ran",
  },
  VERIFICATION_FAILED: {
    exit: EXIT.conflict,
    meaning: "a verification phase exited non-zero or timed out; the stored receipt is in the error (receipt)",
  },
  UNSUPPORTED: {
    exit: EXIT.conflict,
    meaning: "this host cannot do it (not Linux, bwrap or uv missing, no sandbox possible); the message says why",
  },
  HERDR_REFUSED: { exit: EXIT.conflict, meaning: "Herdr refused the request (its error code is in the message)" },
  CHECK_FAILED: { exit: EXIT.conflict, meaning: "a check found something broken; its line says how to fix it" },
  NOT_DELIVERED: {
    exit: EXIT.undelivered,
    meaning: "sent, but no recipient will read it (none checked in)",
  },
  MESSAGE_NOT_FOUND: { exit: EXIT.notFound, meaning: "a message id is not one of this agent's messages; nothing changed" },
  NOT_FOUND: { exit: EXIT.notFound, meaning: "the object does not exist" },
  RATE_LIMITED: { exit: EXIT.rateLimited, meaning: "too many calls; retry after the time given" },
  TIMEOUT: { exit: EXIT.timeout, meaning: "the wait ended before the condition was met" },
  STORE_UNAVAILABLE: {
    exit: EXIT.unavailable,
    meaning: "the store is locked or unreachable (server down, connection refused, host not resolving); retry",
  },
  DISK_FULL: {
    exit: EXIT.unavailable,
    meaning: "the disk holding the store is full; nothing was written; free space, then retry",
  },
  STORE_READ_ONLY: {
    exit: EXIT.usage,
    meaning: "the store can be read but not written (read-only file or file system, a standby server); nothing was written",
  },
  STORE_CORRUPT: {
    exit: EXIT.usage,
    meaning: "the store file is not a valid database or is damaged; the message names the file and how to set it aside",
  },
  STORE_AUTH: {
    exit: EXIT.usage,
    meaning: "the PostgreSQL server refused the user or password in AGENT_COMPUTER_DATABASE_URL (never an agent token)",
  },
  UNAVAILABLE: { exit: EXIT.unavailable, meaning: "a required service (worker, Herdr) is not running; retry" },
  ADDRESS_IN_USE: { exit: EXIT.unavailable, meaning: "the worker's host:port is taken (another worker?); choose another --port" },
  INTERNAL: { exit: EXIT.internal, meaning: "an unexpected failure (a bug); details on stderr" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** What any command that opens the store can answer because of its environment (not a bug, not the caller's input). */
export const STORE_ERRORS = [
  "STORE_UNAVAILABLE",
  "DISK_FULL",
  "STORE_READ_ONLY",
  "STORE_CORRUPT",
  "STORE_AUTH",
  "CONFIG_INVALID",
] as const satisfies readonly ErrorCode[];

/** The one error type every layer throws (domain, store, worker, cli); only an entry point turns it into an exit. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
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

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** The store cannot take a write but can still be read: a call that would only renew presence may still answer. */
export const cannotWrite = (error: unknown): boolean =>
  error instanceof AppError && (error.code === "DISK_FULL" || error.code === "STORE_READ_ONLY");

/** The message of anything thrown, for a log line. */
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A full disk met outside the store (the token vault, a lock or registration file) is the machine's state, not a
 * bug: DISK_FULL with the system's message (which names the operation), else undefined.
 */
export const diskFullElsewhere = (error: unknown): AppError | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ENOSPC" && code !== "EDQUOT") return undefined;
  return new AppError("DISK_FULL", `no space left on the device (${errorText(error)})`, {
    hint: "free space on that file system (df -h), then retry",
    cause: error,
  });
};
