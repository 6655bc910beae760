// What agent-webhook-cli's subcommands share: the contract text, the endpoint flag, the call and how an endpoint is shown.
import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import type { EndpointView } from "../../domain/outbound-webhooks/endpoints.ts";
import { neutralizeLine } from "../../terminal-text.ts";
import type { DepsOf } from "../kernel/command.ts";
import { tokenFileSchema } from "../kernel/credential.ts";

export const ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"];
export const ENDPOINT_VIEW =
  '{"id":"whk_…","url","events":[…],"state":"active|disabled","disabled_reason","allow_private","failed_streak",' +
  '"events_by_state":{"pending","delivered","failed"},"created_at","updated_at"}';

export const endpointIdSchema = z
  .string()
  .check(z.regex(/^whk_[0-9a-f]{32}$/, "must be an endpoint id like whk_0193… (agent-webhook-cli list shows yours)"));

type Authenticated = { agentId: string; tokenFile?: string | undefined };

/** A subcommand's run: the domain call made as the caller, with the token it presented. */
export const withCaller =
  <O extends Authenticated, R>(fn: (deps: DepsOf<"store">, o: O, token: string | undefined) => Promise<R>) =>
  async (options: O, deps: DepsOf<"store">): Promise<R> => {
    const token = deps.credential?.token;
    return fn(deps, options, token);
  };

export const endpointLine = (e: EndpointView): string => {
  const counts = e.events_by_state;
  const state = e.state === "active" ? "active" : `DISABLED (${neutralizeLine(e.disabled_reason ?? "")})`;
  return (
    `${e.id} ${state} ${neutralizeLine(e.url)} [${e.events.join(",")}]` +
    ` pending ${counts.pending}, delivered ${counts.delivered}, failed ${counts.failed}`
  );
};

/** The flags of remove, enable and rotate-secret: one endpoint of yours. */
export const endpointSchema = z.object({
  agentId: agentIdSchema,
  endpointId: endpointIdSchema.check(z.describe("one of your endpoints (agent-webhook-cli list)")),
  tokenFile: tokenFileSchema,
});
export type EndpointOptions = z.output<typeof endpointSchema>;
