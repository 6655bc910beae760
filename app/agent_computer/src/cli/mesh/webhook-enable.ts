import { type EnableResult, enableEndpoint } from "../../domain/outbound-webhooks/endpoints.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential } from "../kernel/credential.ts";
import { ENDPOINT_VIEW, ENV, type EndpointOptions, endpointLine, endpointSchema, withCaller } from "./webhook-shared.ts";

export default defineCommand({
  name: "agent-webhook-cli enable",
  summary: "make a disabled endpoint active again; the events it kept pending are sent",
  description:
    "Its failure streak starts over. Enabling an active endpoint changes nothing (changed: false). Events of the time " +
    "it was disabled were never recorded and are not sent.",
  schema: endpointSchema,
  writes: "the endpoint's state (and your presence renewal).",
  output: `{"agent_id","changed",…${ENDPOINT_VIEW}}`,
  errors: authenticatedErrorsWith("NOT_FOUND"),
  env: ENV,
  examples: ["agent-webhook-cli enable --agent-id builder-1 --endpoint-id whk_0193a1b2c3d4e5f60718293a4b5c6d7e"],
  needs: { deps: "store", credential: ownCredential },
  run: withCaller<EndpointOptions, EnableResult>((deps, o, token) =>
    enableEndpoint(deps, { agentId: o.agentId, token, endpointId: o.endpointId }),
  ),
  render: (r: EnableResult) => `${r.changed ? "enabled" : "already active"}: ${endpointLine(r)}`,
});
