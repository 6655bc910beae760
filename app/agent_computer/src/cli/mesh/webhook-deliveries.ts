import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type AttemptView, type DeliveriesResult, listDeliveries } from "../../domain/outbound-webhooks/endpoints.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { ENV, endpointIdSchema, withCaller } from "./webhook-shared.ts";

const deliveriesSchema = z.object({
  agentId: agentIdSchema,
  endpointId: z.optional(endpointIdSchema).check(z.describe("only this endpoint's attempts (default: all of yours)")),
  limit: z
    ._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(500)), 50)
    .check(z.describe("how many attempts at most, newest first (1-500)")),
  tokenFile: tokenFileSchema,
});

const attemptLine = (a: AttemptView): string =>
  `${a.started_at} ${a.endpoint_id} ${a.event_id} ${a.type} #${a.attempt} ${a.outcome ?? "in flight"}` +
  `${a.status_code !== null ? ` HTTP ${a.status_code}` : ""}${a.error_kind && a.error_kind !== "http_status" ? ` ${a.error_kind}` : ""}` +
  `${a.duration_ms !== null ? ` ${a.duration_ms} ms` : ""}`;

export default defineCommand({
  name: "agent-webhook-cli deliveries",
  summary: "recent delivery attempts of your endpoints: when, which event, outcome, status code, duration",
  description:
    "One line per attempt, newest first. outcome: delivered, failed, lost (the worker went away mid-attempt; the event " +
    "was sent again) or null while in flight. error_kind: http_status, timeout, connection, refused_address (the host " +
    "resolved to a private address), lost. Response bodies are never kept.",
  schema: deliveriesSchema,
  writes: `only your presence renewal.${PRESENCE_FALLBACK}`,
  output:
    '{"agent_id","endpoint_id","attempts":[{"event_id","endpoint_id","type","attempt","worker_id","started_at",' +
    '"duration_ms","status_code","error_kind","outcome"}],"warning"?}',
  errors: authenticatedErrorsWith("NOT_FOUND"),
  env: ENV,
  examples: [
    "agent-webhook-cli deliveries --agent-id builder-1",
    "agent-webhook-cli deliveries --agent-id builder-1 --endpoint-id whk_0193a1b2c3d4e5f60718293a4b5c6d7e --limit 5 --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: withCaller<z.output<typeof deliveriesSchema>, DeliveriesResult>((deps, o, token) =>
    listDeliveries(deps, { agentId: o.agentId, token, endpointId: o.endpointId, limit: o.limit }),
  ),
  render: (r: DeliveriesResult) =>
    r.attempts.length === 0 ? "no delivery attempts yet" : r.attempts.map(attemptLine).join("\n"),
});
