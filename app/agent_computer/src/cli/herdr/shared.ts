// What the two Herdr binaries share: the option schemas that recur, and the rendering of results
// (agent output is untrusted: it is neutralised before it reaches a terminal).
import * as z from "zod/mini";
import { HERDR_AGENT_KINDS, HERDR_AGENT_NAME_PATTERN, misreadPromptText } from "../../adapters/herdr/client.ts";
import type { HandoffOutput } from "../../domain/herdr/handoff-results.ts";
import { AppError, type ErrorCode, STORE_ERRORS } from "../../errors.ts";
import { neutralizeLine } from "../kernel/output.ts";

export const CONTROL_ENV = [
  "AGENT_CONTROL_CONTROLLER_ID",
  "HERDR_ENV",
  "HERDR_PANE_ID",
  "HERDR_SOCKET_PATH",
  "AGENT_COMPUTER_HOME",
  "AGENT_COMPUTER_DATABASE_URL",
] as const;
export const BINDING_ENV = [...CONTROL_ENV, "AGENT_CONTROL_CONTROLLER_PID", "AGENT_COMPUTER_HOST_ID"] as const;

/** Errors of a read of Herdr: the server down or gone for good, the pane missing, no answer in time, refused. */
export const HERDR_READ_ERRORS: readonly ErrorCode[] = ["UNAVAILABLE", "NOT_FOUND", "TIMEOUT", "HERDR_REFUSED"];

/**
 * Errors of every command that loads controller authority. The Herdr read errors come from the caller's own Herdr
 * read (its pane's agent), made before any lease is touched. A command that takes a reservation lock adds
 * RESERVATION_BUSY.
 */
export const AUTHORITY_ERRORS: readonly ErrorCode[] = [
  "INVALID_INPUT",
  "CONTROLLER_CONTEXT_MISSING",
  "CONTROLLER_AUTH_FAILED",
  "CONTROLLER_FENCED",
  "CONTROLLER_EXPIRED",
  ...HERDR_READ_ERRORS,
  ...STORE_ERRORS,
];

/** The errors of a command that loads controller authority and takes a reservation lock, its own in between. */
export const authorityErrorsWith = (...own: ErrorCode[]): readonly ErrorCode[] => [
  ...AUTHORITY_ERRORS,
  "RESERVATION_BUSY",
  ...own,
  "INTERNAL",
];

export const sha256Schema = z.string().check(z.regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256 (64 characters)"));
export const commitSchema = z.string().check(z.regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/, "must be a full lowercase commit id"));
export const agentNameSchema = z
  .string()
  .check(z.regex(HERDR_AGENT_NAME_PATTERN, "must be a Herdr agent name: [a-z][a-z0-9_-]{0,31}"));
export const kindSchema = z.enum(HERDR_AGENT_KINDS);
export const seqSchema = z.coerce.number().check(z.int(), z.minimum(0));
export const leaseIdSchema = z.string().check(z.regex(/^lease_[0-9a-f]{32}$/, "must be a lease id (lease_…)"));
/** A whole number of the flag's unit within [min, max], `fallback` when not given. */
export const boundedInt = (min: number, max: number, fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.minimum(min), z.maximum(max)), fallback);
export const timeoutMsSchema = boundedInt(1, 600_000, 120_000).check(
  z.describe("milliseconds to wait for results; undelivered work is never cancelled by it"),
);
export const readLinesSchema = boundedInt(1, 2000, 200).check(
  z.describe(
    "lines of the agent's recent output to return. Read with Herdr's `--source recent`: on an idle agent using the " +
      "alternate screen Herdr scrolls it (mouse-wheel input into its terminal, then back; up to ~20 s, budgeted), " +
      "since the visible screen alone would cut longer answers",
  ),
);
export const modeSchema = z
  ._default(z.enum(["all", "first"]), "all")
  .check(
    z.describe(
      "all: wait for every result (request order); first: return at the first completed result, the rest as pending_receipts",
    ),
  );
export const startTimeoutSchema = boundedInt(3001, 300_000, 30_000).check(
  z.describe("Herdr's budget for the agent to become interactive (ms)"),
);
export const busyWindowSchema = boundedInt(100, 60_000, 10_000).check(
  z.describe("how long agent_pane_busy on the new pane is retried (ms); no other error is retried"),
);

/** A request text Herdr accepts as one argv element: no leading '-', no control characters but newline and tab. */
export const messageProblem = (message: string): string | undefined => {
  if (message.trim() === "") return "must not be empty";
  if (message.length > 65_536) return "must be at most 65536 characters";
  if (misreadPromptText(message)) {
    return "must not be '--session' or begin with '--session=' (Herdr takes that as its session flag, wherever it stands)";
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences must never reach a pane
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(message)) return "must not contain control characters";
  return undefined;
};

export const renderHandoff = (output: HandoffOutput): string => {
  const lines: string[] = [];
  for (const result of output.results) {
    const where = result.state_change_seq !== undefined ? ` ${result.status} at seq ${result.state_change_seq}` : "";
    const why = result.error ? ` (${result.stage ?? "collect"}: ${neutralizeLine(result.error)})` : "";
    lines.push(`${result.target}: ${result.state}${where}${why}  receipt ${result.receipt}`);
    if (result.output !== undefined) lines.push(result.output.replace(/^/gm, "  | "));
  }
  if (output.pending_receipts.length > 0) lines.push(`pending receipts (collect later): ${output.pending_receipts.join(" ")}`);
  return lines.join("\n");
};

export const renderLease = (lease: {
  lease_id: string;
  type: string;
  state: string;
  agent_name: string;
  pane_id: string | null;
  cwd: string;
}) =>
  `${lease.type} lease ${lease.lease_id}: ${lease.state} · agent ${lease.agent_name} · pane ${lease.pane_id ?? "-"} · ${neutralizeLine(lease.cwd)}`;

/** reconcile and reviewer sweep change nothing unless --apply is given; --dry-run only says so explicitly. */
export const dryRunOf = (options: { apply: boolean; dryRun: boolean }): boolean => {
  if (options.apply && options.dryRun) {
    throw new AppError("INVALID_INPUT", "--apply and --dry-run contradict each other: give one of them");
  }
  return !options.apply;
};
