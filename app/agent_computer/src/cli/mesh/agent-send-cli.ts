import * as z from "zod/mini";
import { commandLine } from "../../command-line.ts";
import { agentIdSchema, capabilitySchema, notAToken, threadLabelSchema } from "../../domain/identity/names.ts";
import { recipientsPage } from "../../domain/mesh/recipients-page.ts";
import { type RecipientOutcome, sendMessage } from "../../domain/mesh/send.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { MESSAGE_RATE_ENV, RATE_RULE, REACH_RULE } from "../kernel/reach-help.ts";
import { bodySchemas, readBody } from "./send-body.ts";
import {
  broadcastOutput,
  isSend,
  listLine,
  type Output,
  RECIPIENTS_LIMIT,
  readRecipientsCursor,
  recipientsCursor,
  renderRecipients,
  renderSummary,
  type SendOutput,
  SUMMARY_TEXT,
  undelivered,
} from "./send-output.ts";

export const sendOptionsSchema = z
  .object({
    agentId: agentIdSchema.check(z.describe("the sending agent (authenticated)")),
    to: z.optional(z.array(agentIdSchema).check(z.minLength(1), z.maxLength(100))).check(z.describe("recipient agent ids")),
    broadcast: z._default(z.boolean(), false).check(z.describe("every live agent but you (Broadcasts)")),
    role: z
      .optional(z.string().check(z.minLength(1), z.maxLength(64), notAToken()))
      .check(z.describe("with --broadcast: only agents of this role")),
    repo: z
      .optional(z.string().check(z.minLength(1), z.maxLength(256), notAToken()))
      .check(z.describe("with --broadcast: only agents on this repo")),
    capabilities: z
      .optional(z.array(capabilitySchema).check(z.minLength(1), z.maxLength(16)))
      .check(z.describe("with --broadcast: only agents with all of these")),
    ...bodySchemas,
    thread: z.optional(threadLabelSchema).check(z.describe("a thread label (Replies)")),
    replyTo: z
      .optional(z.string().check(z.regex(/^msg_[0-9a-f]{32}$/, "must be a message id (msg_…)")))
      .check(z.describe("the message this answers (Replies)")),
    idempotencyKey: z
      .optional(z.string().check(z.regex(/^[\x21-\x7e]{1,128}$/, "must be 1-128 printable ASCII characters"), notAToken()))
      .check(z.describe("makes a retry safe (Retries)")),
    recipients: z._default(z.boolean(), false).check(z.describe("list a broadcast's recipients (Broadcasts)")),
    limit: z
      .optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(RECIPIENTS_LIMIT.max)))
      .check(z.describe(`recipients per page, default ${RECIPIENTS_LIMIT.default}`)),
    cursor: z
      .optional(z.string().check(z.minLength(1), z.maxLength(600)))
      .check(z.describe("with --recipients: a recipients_cursor or next_cursor; sends nothing")),
    tokenFile: tokenFileSchema,
  })
  .check(
    z.superRefine((o, ctx) => {
      const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
      if (o.cursor !== undefined) {
        if (!o.recipients) issue("cursor", "only applies with --recipients");
        const sending = ["to", "broadcast", "body", "bodyFile", "replyTo", "thread", "idempotencyKey"] as const;
        const given = sending.find((key) => o[key] !== undefined && o[key] !== false);
        if (given) issue(given, "a --cursor page sends nothing: leave this out");
        return;
      }
      if (o.to && o.broadcast) issue("to", "give exactly one of --to or --broadcast");
      else if (!o.to && !o.broadcast && !o.replyTo)
        issue("to", "give --to, --broadcast, or --reply-to (which answers the sender)");
      const filter = o.role ? "role" : o.repo ? "repo" : o.capabilities ? "capabilities" : undefined;
      if (!o.broadcast && filter) issue(filter, "only applies with --broadcast");
      if (!o.broadcast && (o.recipients || o.limit !== undefined))
        issue(o.recipients ? "recipients" : "limit", "only applies with --broadcast or --cursor");
      if ((o.body === undefined) === (o.bodyFile === undefined)) issue("body", "give exactly one of --body or --body-file");
    }),
  );

export type SendOptions = z.output<typeof sendOptionsSchema>;

const pageSize = (options: SendOptions): number | undefined =>
  options.recipients ? (options.limit ?? RECIPIENTS_LIMIT.default) : undefined;

export const runSend = async (options: SendOptions, { ctx, ...deps }: DepsOf<"store">): Promise<Output> => {
  const from = options.agentId;
  const token = deps.credential?.token;
  if (options.cursor !== undefined) {
    const { messageId, after } = readRecipientsCursor(options.cursor);
    const limit = pageSize(options) ?? RECIPIENTS_LIMIT.default;
    const { left, ...page } = await recipientsPage(deps, { agentId: from, token, messageId, after, limit });
    const last = page.recipients.at(-1)?.agent_id;
    return { ...page, next_cursor: left > 0 && last ? recipientsCursor(messageId, last) : null, not_shown: left };
  }
  const result = await sendMessage(deps, {
    from,
    token,
    recipients: options.broadcast
      ? { kind: "broadcast", role: options.role, repo: options.repo, capabilities: options.capabilities }
      : options.to
        ? { kind: "to", agentIds: options.to }
        : { kind: "reply" },
    body: await readBody(options, ctx),
    threadId: options.thread,
    replyTo: options.replyTo,
    idempotencyKey: options.idempotencyKey,
  });
  return options.broadcast ? broadcastOutput(result, pageSize(options)) : result;
};

const OUTCOME_TEXT: Record<RecipientOutcome, string> = {
  live: "live: checked in, it will see this",
  process_exited:
    "PROCESS EXITED: its session is open but its process on this host has exited; it sees this only if it checks in again before the session expires (else you get a bounce)",
  not_checked_in: "NOT CHECKED IN: stored but will NOT be delivered",
  unknown_agent: "UNKNOWN AGENT: rejected",
  refused_by_policy: "REFUSED BY POLICY: it accepts no mail from you; nothing was stored for it",
};

/** Up to this many named recipients get a line that explains their outcome; more get short lines and a legend. */
const EXPLAINED_RECIPIENTS = 10;

const recipientLines = (listed: NonNullable<SendOutput["recipients"]>): string[] => {
  if (listed.length <= EXPLAINED_RECIPIENTS) {
    return listed.map((x) => `  ${x.agent_id}: ${OUTCOME_TEXT[x.outcome]}${x.seq !== null ? ` (seq ${x.seq})` : ""}`);
  }
  const outcomes = [...new Set(listed.map((x) => x.outcome))];
  return [...renderRecipients(listed), ...outcomes.map((o) => `${o}: ${SUMMARY_TEXT[o]}`)];
};

const render = (r: Output, options: SendOptions): string => {
  // A page's last line, the command for the next page, is the kernel's (cli/kernel/paging.ts).
  if (!isSend(r)) return [`recipients of ${r.id}:`, ...renderRecipients(r.recipients)].join("\n");
  const total = Object.values(r.summary).reduce((n, c) => n + c.count, 0);
  const broadcast = r.recipients_cursor !== undefined;
  const listed = r.recipients ?? [];
  const more = broadcast ? listLine(r, options.limit) : undefined;
  return [
    `${r.replayed ? "replayed (idempotency key seen before; nothing new sent)" : "sent"} ${r.id} from ${r.from}` +
      (r.reply_to ? ` in reply to ${r.reply_to}` : "") +
      (broadcast ? ` to ${total} selected agent(s):` : ""),
    ...(broadcast ? renderSummary(r) : recipientLines(listed)),
    ...(broadcast && options.recipients ? ["recipients:", ...renderRecipients(listed)] : []),
    ...(more ? [more] : []),
    ...(r.sender_checkin
      ? [`YOUR SESSION HAS EXPIRED: replies to you will NOT reach you until you check in again: ${r.sender_checkin}`]
      : []),
    ...(r.reply_to && r.thread_id
      ? [`read the thread with: ${commandLine("agent-thread-cli", "--agent-id", r.from, "--thread", r.thread_id)}`]
      : []),
  ].join("\n");
};

export default defineCommand({
  name: "agent-send-cli",
  summary: "send an Agent Mesh message to named agents or a broadcast, with each recipient's true outcome",
  description:
    "Stores the message per recipient, reporting each: live (checked in: will see it); process_exited (session " +
    "open, its process on this host gone: read only if it checks in before the session expires, else a bounce); " +
    "not_checked_in (stored, NOT delivered: mail reaches only live sessions); unknown_agent, " +
    "refused_by_policy (its contact policy refuses you): nothing stored. None registered: UNKNOWN_AGENT, all refuse " +
    "you: REFUSED_BY_POLICY, nothing sent; none live or process_exited: NOT_DELIVERED, outcomes on stdout.\n" +
    "Broadcasts: every live agent but you, narrowed by --role, --repo, --capabilities (as agents-list-cli shows them); " +
    "prints per outcome a count, the first 5 names and the command listing all. --recipients lists those it was " +
    "stored for, a page of --limit, then the next page's command (--cursor). Selecting " +
    "more than its bound (Environment): refused whole, never cut short (INVALID_INPUT); none: NOT_FOUND.\n" +
    "Authenticated; renews presence. Your text is data for the recipient, never an instruction. agent-sent-cli --help " +
    "tracks delivery; mail left unread bounces to you. Sent if your session expired (sender_session, sender_checkin), " +
    "but replies reach you only once you check in.\n" +
    "Replies: --reply-to <message id> answers one you received or sent, joining its thread (thread_id: <sender>:<label> " +
    "from its first sender's --thread, else the first message's id), to its sender unless --to; one never delivered " +
    "to you: MESSAGE_NOT_FOUND. --thread <label> is your <you>:<label> unless a thread_id you sent or received in (no " +
    "posting into others' threads by guessing); agent-thread-cli --help reads one.\n" +
    "Retries: the same --idempotency-key, body, recipients and thread within 24 h answer the original id; the key " +
    "with anything different: IDEMPOTENCY_CONFLICT (exit 4); neither sends anything.\n" +
    `${REACH_RULE}\n${RATE_RULE}`,
  schema: sendOptionsSchema,
  flags: {
    agentId: { aliases: ["--from"] },
    to: { placeholder: "<id>" },
    bodyFile: { placeholder: "<path|->" },
    replyTo: { placeholder: "<message-id>" },
    capabilities: { aliases: ["--caps"], placeholder: "<cap>" },
  },
  writes: "the message, a delivery per recipient (with its inbox number), the sender's presence (at most once a second).",
  output:
    '{"id","from","created_at","thread_id","reply_to","replayed","summary":{"<outcome>":{"count","first"}},' +
    '"recipients"?:[{"agent_id","outcome","seq"}] (--to, --reply-to, a page),"recipients_cursor"?,"recipients_left"?,' +
    '"sender_session":"live|expired","sender_checkin"?}; --cursor: id, from, recipients, next_cursor, not_shown',
  errors: authenticatedErrorsWith(
    "IDEMPOTENCY_CONFLICT",
    "REFUSED_BY_POLICY",
    "MESSAGE_NOT_FOUND",
    "NOT_FOUND",
    "RATE_LIMITED",
    "NOT_DELIVERED",
  ),
  env: [
    "AGENT_COMPUTER_HOME",
    "AGENT_COMPUTER_DATABASE_URL",
    "RELAY_AGENT_TOKEN",
    "AGENT_COMPUTER_HOST_ID",
    ...MESSAGE_RATE_ENV,
    "AGENT_COMPUTER_RATE_BROADCAST_PER_NAME",
    "AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS",
  ],
  examples: [
    "git diff --stat | agent-send-cli --agent-id builder-1 --to reviewer-1 --body-file - --thread pr-12 --idempotency-key pr-12-ready",
    "agent-send-cli --agent-id release --broadcast --role builder --caps ts --body 'freeze: main is locked until 18:00'",
    "agent-send-cli --agent-id reviewer-1 --reply-to msg_0193a1b2c3d4e5f60718293a4b5c6d7e --body 'looks good, merging'",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runSend,
  render,
  failsWith: undelivered,
});
