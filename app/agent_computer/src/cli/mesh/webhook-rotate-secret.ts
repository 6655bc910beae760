import { ROTATION_OVERLAP_MS, type RotateResult, rotateSecret } from "../../domain/outbound-webhooks/endpoints.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential } from "../kernel/credential.ts";
import { ENDPOINT_VIEW, ENV, type EndpointOptions, endpointLine, endpointSchema, withCaller } from "./webhook-shared.ts";

export default defineCommand({
  name: "agent-webhook-cli rotate-secret",
  summary: "give an endpoint a new signing secret, printed once; the old one keeps signing beside it for a day",
  description:
    `For ${ROTATION_OVERLAP_MS / 3_600_000} h every request carries two v1 signatures in webhook-signature, one per ` +
    "secret (Standard Webhooks receivers accept any one that matches), so the receiver can switch to the new secret " +
    "with no failed delivery; after that only the new one signs. Rotating again replaces the old secret with the one " +
    "rotated out now. The new secret is stored like the first (never printed again, never logged).",
  schema: endpointSchema,
  writes: "the endpoint's secrets (and your presence renewal).",
  output: `{"agent_id",…${ENDPOINT_VIEW.replace(/^{|}$/g, "")},"secret":"whsec_…"(only here),"previous_secret_until","secret_note"}`,
  errors: authenticatedErrorsWith("NOT_FOUND"),
  env: ENV,
  examples: ["agent-webhook-cli rotate-secret --agent-id builder-1 --endpoint-id whk_0193a1b2c3d4e5f60718293a4b5c6d7e --json"],
  needs: { deps: "store", credential: ownCredential },
  run: withCaller<EndpointOptions, RotateResult>((deps, o, token) =>
    rotateSecret(deps, { agentId: o.agentId, token, endpointId: o.endpointId }),
  ),
  render: (r: RotateResult) =>
    [
      endpointLine(r),
      `  new secret (shown once): ${r.secret}`,
      `  the old secret signs too until ${r.previous_secret_until}`,
      `  ${r.secret_note}`,
    ].join("\n"),
});
