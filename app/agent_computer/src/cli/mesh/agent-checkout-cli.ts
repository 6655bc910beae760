import * as z from "zod/mini";
import { type CheckoutResult, checkOut } from "../../domain/agents/checkout.ts";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";

export const checkoutOptionsSchema = z.object({
  agentId: agentIdSchema,
  confirm: z
    ._default(z.boolean(), false)
    .check(z.describe("actually end the session; without it only a preview is printed and nothing changes")),
  tokenFile: tokenFileSchema,
});

export type CheckoutOptions = z.output<typeof checkoutOptionsSchema>;

const runCheckout = (options: CheckoutOptions, deps: DepsOf<"store">): Promise<CheckoutResult> =>
  checkOut(deps, { agentId: options.agentId, token: deps.credential?.token, confirm: options.confirm });

const render = (r: CheckoutResult): string => {
  if (r.preview)
    return r.action === "none"
      ? `PREVIEW (nothing changed): ${r.agent_id} has no open session to end`
      : `PREVIEW (nothing changed; add --confirm to check out): would end session ${r.session_id} of ${r.agent_id}`;
  return r.action === "none"
    ? `${r.agent_id}: no open session; nothing to end`
    : `${r.agent_id}: checked out; session ${r.session_id} ended at ${r.ended_at}`;
};

export default defineCommand({
  name: "agent-checkout-cli",
  summary: "end this agent's Agent Mesh session now, so the directory stops showing it as alive",
  description:
    "Ends the current session at once instead of when its ttl runs out: agents-list-cli stops showing it, messages to it " +
    "are answered not_checked_in, and mail it had not acknowledged becomes expired-undelivered with one bounce notice to " +
    "each sender, exactly as on expiry. The agent stays registered (token, tasks): a later agent-checkin-cli --confirm " +
    "starts a new session, whose inbox begins empty.\n" +
    "Without --confirm this prints what would end and changes nothing. Without an open session (already ended or expired) " +
    "it changes nothing and says so (action none, exit 0), so it is safe to run twice.\n" +
    "The agent-mesh Skill's session-end hook runs it when a Claude Code or Codex session closes.",
  schema: checkoutOptionsSchema,
  writes:
    "with --confirm: the session's end (ended_at), its unacknowledged deliveries (expired_undelivered) and the bounce notices; without: nothing.",
  output: '{"agent_id","action":"end_session|none","session_id","ended_at","preview"?:true}',
  errors: authenticatedErrorsWith(),
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: ["agent-checkout-cli --agent-id builder-1   # preview", "agent-checkout-cli --agent-id builder-1 --confirm --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runCheckout,
  render,
});
