// What agent-send-cli prints: a direct send names each recipient; a broadcast summarises by outcome (a count and the
// first few names of each) and lists its recipients only on request, a page at a time.
import { commandLine } from "../../command-line.ts";
import type { RecipientsPage } from "../../domain/mesh/recipients-page.ts";
import type { RecipientOutcome, SendResult } from "../../domain/mesh/send.ts";
import { noneWillRead } from "../../domain/mesh/send-summary.ts";
import { AppError } from "../../errors.ts";
import { decodeCursor, encodeCursor, type Paged } from "../kernel/paging.ts";

export const RECIPIENTS_LIMIT = { default: 100, max: 1000 } as const;

/**
 * A send's result as printed: a broadcast's `recipients` only with --recipients (one page of them), and where the
 * listing continues (`recipients_cursor`, for `--recipients --cursor`). Not `next_cursor`: the next page is not this
 * command again with another cursor, which would send again.
 */
export type SendOutput = Omit<SendResult, "recipients"> & {
  recipients?: SendResult["recipients"];
  /** A broadcast's: the cursor of the (next) page of its recipients; null when none is left. */
  recipients_cursor?: string | null;
  /** With a page: how many recipients follow it. */
  recipients_left?: number;
};

/** A page of an earlier message's recipients (--cursor): paged by the family's convention (cli/kernel/paging.ts). */
export type PageOutput = Omit<RecipientsPage, "left"> & Paged;

export type Output = SendOutput | PageOutput;

export const isSend = (out: Output): out is SendOutput => "summary" in out;

const COMMAND = "agent-send-cli";

/** The opaque cursor: the message and the last name shown ("": before the first). */
export const recipientsCursor = (messageId: string, after: string | null): string =>
  encodeCursor(COMMAND, {}, [messageId, after ?? ""]);

export const readRecipientsCursor = (cursor: string): { messageId: string; after: string | null } => {
  const [messageId, after] = decodeCursor(COMMAND, {}, cursor, ["string", "string"]) as [string, string];
  if (!/^msg_[0-9a-f]{32}$/.test(messageId)) {
    throw new AppError("INVALID_INPUT", "--cursor: is not a cursor agent-send-cli printed");
  }
  return { messageId, after: after === "" ? null : after };
};

const listCommandFor = (from: string, cursor: string, limit: number | undefined): string =>
  commandLine(COMMAND, "--agent-id", from, "--recipients", "--cursor", cursor, ...(limit ? ["--limit", limit] : []));

/** A broadcast's output: the summary, and with `page` (a limit) the first page of its recipients. */
export const broadcastOutput = (r: SendResult, page: number | undefined): SendOutput => {
  const { recipients, ...rest } = r;
  if (page === undefined) return { ...rest, recipients_cursor: recipientsCursor(r.id, null) };
  // A page lists the recipients the message was stored for, as later pages (from the store) do.
  const stored = recipients.filter((x) => x.seq !== null);
  const shown = stored.slice(0, page);
  const last = shown.at(-1)?.agent_id;
  return {
    ...rest,
    recipients: shown,
    recipients_left: stored.length - shown.length,
    recipients_cursor: stored.length > shown.length && last ? recipientsCursor(r.id, last) : null,
  };
};

export const SUMMARY_TEXT: Record<RecipientOutcome, string> = {
  live: "live (checked in, will see it)",
  process_exited: "PROCESS EXITED (reads it only if it checks in again before its session expires)",
  not_checked_in: "NOT CHECKED IN (stored, will NOT be delivered)",
  unknown_agent: "UNKNOWN AGENT",
  refused_by_policy: "REFUSED BY POLICY (nothing stored for them)",
};

export const renderSummary = (r: SendOutput): string[] =>
  Object.entries(r.summary).map(([outcome, { count, first }]) => {
    const more = count > first.length ? ` and ${count - first.length} more` : "";
    return `  ${SUMMARY_TEXT[outcome as RecipientOutcome]}: ${count}: ${first.join(", ")}${more}`;
  });

/** The recipients of a page, one line each. */
export const renderRecipients = (recipients: SendResult["recipients"]): string[] =>
  recipients.map((x) => `  ${x.agent_id}: ${x.outcome}${x.seq !== null ? ` (seq ${x.seq})` : ""}`);

/** The last line of a broadcast's output: the command that lists its recipients, or fetches the next page of them. */
export const listLine = (r: SendOutput, limit: number | undefined): string | undefined => {
  if (!r.recipients_cursor) return undefined;
  const command = listCommandFor(r.from, r.recipients_cursor, limit);
  return r.recipients ? `${r.recipients_left} more not shown: ${command}` : `each recipient: ${command}`;
};

/** A send that no recipient will read: printed as usual, then NOT_DELIVERED and its own exit code. */
export const undelivered = (out: Output): AppError | undefined => {
  if (!isSend(out)) return undefined;
  if (!noneWillRead(Object.keys(out.summary).map((outcome) => ({ outcome: outcome as RecipientOutcome })))) return undefined;
  return new AppError(
    "NOT_DELIVERED",
    `${out.id} was sent, but no recipient will read it: none is checked in, and mail reaches only live sessions`,
    { hint: "agents-list-cli shows who is live; send again once the recipient has checked in", details: { message_id: out.id } },
  );
};
