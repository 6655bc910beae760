// Every way a `herdr` call can fail, as one closed union. Kinds come from the error codes Herdr 0.8.0-0.9.x emits;
// the raw code stays available for logs, raw stderr never does.

export const HERDR_ERROR_KINDS = [
  "not_installed",
  "server_unavailable",
  /** The call was cut without an answer (the server restarted or handed off mid-call): try a read again. */
  "interrupted",
  /** Herdr's server_unavailable: its app timed out or was shutting down while the request waited. */
  "transient",
  "version_mismatch",
  "not_found",
  "agent_pane_busy",
  "not_ready",
  "not_running",
  "start_failed",
  "prompt_stalled",
  "prompt_failed",
  /** agent_blocked: the agent waits on a question or approval; Herdr typed nothing. */
  "blocked",
  /** confirmation_required: Herdr wants a human to confirm (closing a worktree group). */
  "confirmation_required",
  /** internal_error: a fault inside Herdr. */
  "herdr_internal",
  /** Any other refusal Herdr names (session stop/delete failures). */
  "refused",
  "name_taken",
  "invalid_argument",
  "timeout",
  "cancelled",
  "usage",
  /** Herdr answered something that is not its contract (a record failing its schema, output that is not JSON). */
  "protocol",
  "unknown",
] as const;

export type HerdrErrorKind = (typeof HERDR_ERROR_KINDS)[number];

const KIND_BY_CODE: Record<string, HerdrErrorKind> = {
  server_not_running: "server_unavailable",
  server_unavailable: "transient",
  protocol_mismatch: "version_mismatch",
  internal_error: "herdr_internal",
  confirmation_required: "confirmation_required",
  agent_blocked: "blocked",
  agent_not_found: "not_found",
  agent_name_not_found: "not_found",
  agent_pane_not_found: "not_found",
  pane_not_found: "not_found",
  tab_not_found: "not_found",
  workspace_not_found: "not_found",
  agent_pane_busy: "agent_pane_busy",
  agent_pane_unavailable: "not_ready",
  agent_not_ready: "not_ready",
  agent_launch_pending: "not_ready",
  agent_not_idle: "not_ready",
  agent_not_running: "not_running",
  agent_start_failed: "start_failed",
  agent_kind_mismatch: "start_failed",
  agent_start_input_failed: "start_failed",
  agent_prompt_stalled: "prompt_stalled",
  agent_prompt_failed: "prompt_failed",
  agent_name_taken: "name_taken",
  agent_target_ambiguous: "invalid_argument",
  invalid_agent_name: "invalid_argument",
  unsupported_agent_kind: "invalid_argument",
  invalid_agent_argument: "invalid_argument",
  invalid_agent_timeout: "invalid_argument",
  empty_agent_prompt: "invalid_argument",
  invalid_request: "invalid_argument",
  invalid_key: "invalid_argument",
  invalid_regex: "invalid_argument",
  invalid_session_name: "invalid_argument",
  session_stop_failed: "refused",
  session_delete_failed: "refused",
  timeout: "timeout",
};

/** Every code Herdr 0.8.0-0.9.x is known to emit; each has a kind other than `unknown`. */
export const KNOWN_HERDR_CODES: readonly string[] = Object.keys(KIND_BY_CODE);

export const kindForHerdrCode = (code: string): HerdrErrorKind => KIND_BY_CODE[code] ?? "unknown";

const MESSAGE_LIMIT = 300;

/** Herdr's own message, kept to one printable line of bounded length before it travels anywhere. */
export const sanitizeHerdrMessage = (message: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  message.replace(/[\u0000-\u001f\u007f]+/g, " ").slice(0, MESSAGE_LIMIT);

export class HerdrError extends Error {
  readonly kind: HerdrErrorKind;
  /** Herdr's error code when Herdr answered with an error envelope (e.g. `agent_pane_busy`). */
  readonly herdrCode: string | undefined;
  /** The subcommand only (`agent prompt`), never its arguments: prompt text stays out of errors. */
  readonly command: string;

  constructor(kind: HerdrErrorKind, message: string, options: { command: string; herdrCode?: string }) {
    super(message);
    this.name = "HerdrError";
    this.kind = kind;
    this.command = options.command;
    this.herdrCode = options.herdrCode;
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, herdrCode: this.herdrCode, command: this.command, message: this.message };
  }
}

export const isHerdrError = (error: unknown, kind?: HerdrErrorKind): error is HerdrError =>
  error instanceof HerdrError && (kind === undefined || error.kind === kind);
