import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { listSent, type SentResult } from "../../domain/mesh/sent.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, limitSchema, type Paged } from "../kernel/paging.ts";

const NAME = "agent-sent-cli";

export const sentOptionsSchema = z.object({
  agentId: agentIdSchema,
  limit: limitSchema(20, 100, "of your most recent messages"),
  cursor: cursorSchema,
  tokenFile: tokenFileSchema,
});

export type SentOptions = z.output<typeof sentOptionsSchema>;

type SentPage = SentResult & Paged;

const runSent = async (options: SentOptions, deps: DepsOf<"store">): Promise<SentPage> => {
  const token = deps.credential?.token;
  const query = { agentId: options.agentId };
  const at = options.cursor ? decodeCursor(NAME, query, options.cursor, ["number", "string"]) : undefined;
  const before = at ? { createdAt: at[0] as number, id: at[1] as string } : undefined;
  const r = await listSent(deps, { agentId: options.agentId, token, limit: options.limit, before });
  return fitPage(r.messages, (shown) => {
    const cut = r.messages.length - shown.length;
    const last = shown.at(-1);
    const more = cut > 0 || r.older_messages > 0;
    return {
      ...r,
      messages: [...shown],
      next_cursor: more && last ? encodeCursor(NAME, query, [Date.parse(last.created_at), last.id]) : null,
      not_shown: r.older_messages + cut,
    };
  });
};

const render = (r: SentPage): string => {
  const lines = [`${r.agent_id}: ${r.messages.length} sent message(s), newest first`];
  for (const m of r.messages) {
    lines.push(`${m.id} at ${m.created_at}: ${neutralizeLine(m.body_preview)}`);
    for (const d of m.recipients) {
      lines.push(`  ${d.agent_id}: ${d.state}${d.acked_at ? ` at ${d.acked_at}` : d.closed_at ? ` at ${d.closed_at}` : ""}`);
    }
    const total = Object.values(m.recipient_counts).reduce((sum, n) => sum + n, 0);
    if (total > m.recipients.length) {
      const counts = Object.entries(m.recipient_counts).filter(([, n]) => n > 0);
      lines.push(
        `  … ${total - m.recipients.length} more recipient(s); all ${total}: ${counts.map(([state, n]) => `${state} ${n}`).join(", ")}`,
      );
    }
  }
  return lines.join("\n");
};

export default defineCommand({
  name: "agent-sent-cli",
  summary: "the sender's view of its Agent Mesh messages: pending, acked or expired undelivered, per recipient",
  description:
    "For each of your recent messages and each recipient: pending (live session, not yet acknowledged), acked (when), " +
    "expired_undelivered (the recipient's session ended before it acknowledged) or not_checked_in (it was not checked in " +
    "when you sent: stored, never delivered). When a recipient's session expires with your mail unacknowledged you also get " +
    "one durable bounce notice in your own inbox, so silence is never mistaken for delivery. Each message names its first " +
    "10 recipients and counts them all by state (recipient_counts). Pages go back in time (--cursor from the last line, " +
    "--json next_cursor). Authenticated; renews presence.",
  schema: sentOptionsSchema,
  writes: `only your presence renewal (and the expiry bookkeeping of sessions that ran out).${PRESENCE_FALLBACK}`,
  output:
    '{"agent_id","messages":[{"id","kind","created_at","thread_id","reply_to","body_preview",' +
    '"recipients":[{"agent_id","state":"pending|acked|expired_undelivered|not_checked_in","seq","acked_at","closed_at"}](first 10),' +
    '"recipient_counts":{"pending","acked","expired_undelivered","not_checked_in"}}],"older_messages","next_cursor","not_shown","warning"?}',
  errors: AUTHENTICATED_ERRORS,
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: ["agent-sent-cli --agent-id builder-1", "agent-sent-cli --agent-id builder-1 --limit 5 --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runSent,
  render,
});
