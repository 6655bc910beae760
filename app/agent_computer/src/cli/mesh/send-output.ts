// What agent-send-cli prints: a direct send names each recipient; a broadcast summarises by outcome (a count and the
// first few names of each) and lists its recipients only on request, a page at a time.
import { commandLine } from "../../command-line.ts";
import type { RecipientsPage } from "../../domain/mesh/recipients-page.ts";
import type { RecipientOutcome, SendResult } from "../../domain/mesh/send.ts";
import { noneWillRead } from "../../domain/mesh/send-summary.ts";
import { AppError } from "../../errors.ts";

export const RECIPIENTS_LIMIT = { default: 100, max: 1000 } as const;

/** A send's result as printed: a broadcast's `recipients` only with --recipients, then one page of them. */
export type SendOutput = Omit<SendResult, "recipients"> & {
  recipients?: SendResult["recipients"];
  /** A broadcast's: the cursor of the (next) page of its recipients; null when none is left. */
  next_cursor?: string | null;
  /** With a page: how many recipients follow it. */
  recipients_left?: number;
};

export type PageOutput = Omit<RecipientsPage, "left"> & { recipients_left: number; next_cursor: string | null };

export type Output = SendOutput | PageOutput;

export const isSend = (out: Output): out is SendOutput => "summary" in out;

/** The opaque cursor: the message and the last name shown (null: before the first). */
export const encodeCursor = (messageId: string, after: string | null): string =>
  Buffer.from(JSON.stringify([messageId, after])).toString("base64url");

export const decodeCursor = (cursor: string): { messageId: string; after: string | null } => {
  try {
    const [messageId, after] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown[];
    if (typeof messageId === "string" && /^msg_[0-9a-f]{32}$/.test(messageId) && (after === null || typeof after === "string")) {
      return { messageId, after };
    }
  } catch {}
  throw new AppError("INVALID_INPUT", "--cursor: not a cursor agent-send-cli printed (copy it whole from next_cursor)");
};

const nextCommand = (from: string, cursor: string, limit: number | undefined): string =>
  commandLine("agent-send-cli", "--agent-id", from, "--recipients", "--cursor", cursor, ...(limit ? ["--limit", limit] : []));

/** A broadcast's output: the summary, and with `page` (a limit) the first page of its recipients. */
export const broadcastOutput = (r: SendResult, page: number | undefined): SendOutput => {
  const { recipients, ...rest } = r;
  if (page === undefined) return { ...rest, next_cursor: encodeCursor(r.id, null) };
  // A page lists the recipients the message was stored for, as later pages (from the store) do.
  const stored = recipients.filter((x) => x.seq !== null);
  const shown = stored.slice(0, page);
  const last = shown.at(-1)?.agent_id;
  return {
    ...rest,
    recipients: shown,
    recipients_left: stored.length - shown.length,
    next_cursor: stored.length > shown.length && last ? encodeCursor(r.id, last) : null,
  };
};

const SUMMARY_TEXT: Record<RecipientOutcome, string> = {
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

/** The recipients of a page, and the line that fetches the next one. */
export const renderPage = (
  from: string,
  recipients: SendResult["recipients"],
  nextCursor: string | null,
  left: number | undefined,
  limit: number | undefined,
): string[] => [
  ...recipients.map((x) => `  ${x.agent_id}: ${x.outcome}${x.seq !== null ? ` (seq ${x.seq})` : ""}`),
  ...(nextCursor ? [`${left === undefined ? "more" : left} not shown; next page: ${nextCommand(from, nextCursor, limit)}`] : []),
];

/** The summary's pointer to the full list. */
export const listCommand = (r: SendOutput): string =>
  `each recipient: ${nextCommand(r.from, r.next_cursor ?? encodeCursor(r.id, null), undefined)}`;

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
