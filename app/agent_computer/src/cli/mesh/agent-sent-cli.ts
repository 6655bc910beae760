import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { listSent, type SentResult } from "../../domain/mesh/sent.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";

export const sentOptionsSchema = z.object({
  agentId: agentIdSchema,
  limit: z
    ._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 20)
    .check(z.describe("how many of your most recent messages to show")),
  tokenFile: tokenFileSchema,
});

export type SentOptions = z.output<typeof sentOptionsSchema>;

const runSent = async (options: SentOptions, deps: DepsOf<"store">): Promise<SentResult> => {
  const token = deps.credential?.token;
  return listSent(deps, { agentId: options.agentId, token, limit: options.limit });
};

const render = (r: SentResult): string => {
  const lines = [`${r.agent_id}: ${r.messages.length} sent message(s), newest first`];
  for (const m of r.messages) {
    lines.push(`${m.id} at ${m.created_at}: ${neutralizeLine(m.body_preview)}`);
    for (const d of m.recipients) {
      lines.push(`  ${d.agent_id}: ${d.state}${d.acked_at ? ` at ${d.acked_at}` : d.closed_at ? ` at ${d.closed_at}` : ""}`);
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
    "one durable bounce notice in your own inbox, so silence is never mistaken for delivery. Authenticated; renews presence.",
  schema: sentOptionsSchema,
  writes: `only your presence renewal (and the expiry bookkeeping of sessions that ran out).${PRESENCE_FALLBACK}`,
  output:
    '{"agent_id","messages":[{"id","kind","created_at","thread_id","reply_to","body_preview",' +
    '"recipients":[{"agent_id","state":"pending|acked|expired_undelivered|not_checked_in","seq","acked_at","closed_at"}]}],"warning"?}',
  errors: AUTHENTICATED_ERRORS,
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: ["agent-sent-cli --agent-id builder-1", "agent-sent-cli --agent-id builder-1 --limit 5 --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runSent,
  render,
});
