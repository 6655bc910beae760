import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type ListResult, listEndpoints } from "../../domain/outbound-webhooks/endpoints.ts";
import { defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { ENDPOINT_VIEW, ENV, endpointLine, withCaller } from "./webhook-shared.ts";

const listSchema = z.object({ agentId: agentIdSchema, tokenFile: tokenFileSchema });
export default defineCommand({
  name: "agent-webhook-cli list",
  summary: "your endpoints, their state and how many of their events are pending, delivered or failed",
  description: "Newest first. Secrets are never shown; URLs without their query string.",
  schema: listSchema,
  writes: `only your presence renewal.${PRESENCE_FALLBACK}`,
  output: `{"agent_id","endpoints":[${ENDPOINT_VIEW}],"warning"?}`,
  errors: AUTHENTICATED_ERRORS,
  env: ENV,
  examples: ["agent-webhook-cli list --agent-id builder-1"],
  needs: { deps: "store", credential: ownCredential },
  run: withCaller<z.output<typeof listSchema>, ListResult>((deps, o, token) =>
    listEndpoints(deps, { agentId: o.agentId, token }),
  ),
  render: (r: ListResult) =>
    r.endpoints.length === 0 ? `${r.agent_id} has no webhook endpoints` : r.endpoints.map(endpointLine).join("\n"),
});
