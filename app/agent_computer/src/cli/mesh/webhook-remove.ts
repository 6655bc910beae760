import { type RemoveResult, removeEndpoint } from "../../domain/outbound-webhooks/endpoints.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential } from "../kernel/credential.ts";
import { ENV, type EndpointOptions, endpointSchema, withCaller } from "./webhook-shared.ts";

export default defineCommand({
  name: "agent-webhook-cli remove",
  summary: "remove an endpoint with its pending events and its delivery records",
  description: "Pending events are dropped unsent. Another agent's endpoint is NOT_FOUND.",
  schema: endpointSchema,
  writes: "deletes the endpoint, its events and attempt records (and renews your presence).",
  output: '{"agent_id","id","removed":true,"events_dropped"}',
  errors: authenticatedErrorsWith("NOT_FOUND"),
  env: ENV,
  examples: ["agent-webhook-cli remove --agent-id builder-1 --endpoint-id whk_0193a1b2c3d4e5f60718293a4b5c6d7e"],
  needs: { deps: "store", credential: ownCredential },
  run: withCaller<EndpointOptions, RemoveResult>((deps, o, token) =>
    removeEndpoint(deps, { agentId: o.agentId, token, endpointId: o.endpointId }),
  ),
  render: (r: RemoveResult) => `removed ${r.id} (${r.events_dropped} pending event(s) dropped unsent)`,
});
