import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import {
  type AddResult,
  type AttemptView,
  addEndpoint,
  type DeliveriesResult,
  type EnableResult,
  type EndpointView,
  enableEndpoint,
  type ListResult,
  listDeliveries,
  listEndpoints,
  MAX_ENDPOINTS_PER_AGENT,
  type RemoveResult,
  ROTATION_OVERLAP_MS,
  type RotateResult,
  removeEndpoint,
  rotateSecret,
} from "../../domain/outbound-webhooks/endpoints.ts";
import { MAX_WEBHOOK_URL_LENGTH, webhookUrlProblem } from "../../domain/outbound-webhooks/url.ts";
import { WEBHOOK_EVENT_KINDS } from "../../store/port.ts";
import { neutralizeLine } from "../../terminal-text.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import {
  AUTHENTICATED_ERRORS,
  authenticatedErrorsWith,
  ownCredential,
  PRESENCE_FALLBACK,
  tokenFileSchema,
} from "../kernel/credential.ts";

const ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"];
const ENDPOINT_VIEW =
  '{"id":"whk_…","url","events":[…],"state":"active|disabled","disabled_reason","allow_private","failed_streak",' +
  '"events_by_state":{"pending","delivered","failed"},"created_at","updated_at"}';

const endpointIdSchema = z
  .string()
  .check(z.regex(/^whk_[0-9a-f]{32}$/, "must be an endpoint id like whk_0193… (agent-webhook-cli list shows yours)"));

type Authenticated = { agentId: string; tokenFile?: string | undefined };

const withCaller =
  <O extends Authenticated, R>(fn: (deps: DepsOf<"store">, o: O, token: string | undefined) => Promise<R>) =>
  async (options: O, deps: DepsOf<"store">): Promise<R> => {
    const token = deps.credential?.token;
    return fn(deps, options, token);
  };

const endpointLine = (e: EndpointView): string => {
  const counts = e.events_by_state;
  const state = e.state === "active" ? "active" : `DISABLED (${neutralizeLine(e.disabled_reason ?? "")})`;
  return (
    `${e.id} ${state} ${neutralizeLine(e.url)} [${e.events.join(",")}]` +
    ` pending ${counts.pending}, delivered ${counts.delivered}, failed ${counts.failed}`
  );
};

const addSchema = z
  .object({
    agentId: agentIdSchema,
    url: z
      .string()
      .check(
        z.maxLength(MAX_WEBHOOK_URL_LENGTH),
        z.describe(
          `where events are POSTed: http:// or https://, at most ${MAX_WEBHOOK_URL_LENGTH} characters, no user:password@, no #fragment`,
        ),
      ),
    events: z
      ._default(z.array(z.enum(WEBHOOK_EVENT_KINDS)).check(z.minLength(1)), [...WEBHOOK_EVENT_KINDS])
      .check(
        z.describe(`which events it receives (repeatable or comma-separated; default all: ${WEBHOOK_EVENT_KINDS.join(",")})`),
      ),
    allowPrivate: z
      ._default(z.boolean(), false)
      .check(
        z.describe(
          "let the worker reach loopback, private, link-local and other addresses the IANA special-purpose registries do not call globally reachable, IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) and the worker host's own addresses (refused by default, both in the URL and when its host name resolves to one); only this host's worker delivers such an endpoint, even when hosts share a store",
        ),
      ),
    tokenFile: tokenFileSchema,
  })
  .check(
    z.superRefine((o, ctx) => {
      const problem = webhookUrlProblem(o.url, o.allowPrivate);
      if (problem) ctx.addIssue({ code: "custom", path: ["url"], message: problem, input: o.url });
    }),
  );

export const addCommand = defineCommand({
  name: "agent-webhook-cli add",
  summary: "register a URL that receives your events; prints its signing secret once",
  description:
    `Adds an active endpoint (at most ${MAX_ENDPOINTS_PER_AGENT} per agent) and prints its whsec_ secret, the only ` +
    "time it is shown. The worker signs with it, so it is stored as is in the state store (readable by the Unix user " +
    "that owns it, or the PostgreSQL role), never printed again and never logged. Events that happen from now on are " +
    "sent; nothing earlier is. Payloads name messages, tasks and runs by id and never carry their text; the payload " +
    "and signature contract is in agent-webhook-cli --help.",
  schema: addSchema,
  writes: "the endpoint with its secret (and your presence renewal).",
  output: `${ENDPOINT_VIEW.replace(/}$/, "")},"secret":"whsec_…"(only here),"secret_note"}`,
  errors: authenticatedErrorsWith("CONFLICT"),
  env: ENV,
  examples: [
    "agent-webhook-cli add --agent-id builder-1 --url https://hooks.example.com/agent --events message,task",
    "agent-webhook-cli add --agent-id builder-1 --url http://127.0.0.1:9000/hook --events run_failed --allow-private --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: withCaller<z.output<typeof addSchema>, AddResult>((deps, o, token) =>
    addEndpoint(deps, { agentId: o.agentId, token, url: o.url, events: o.events, allowPrivate: o.allowPrivate }),
  ),
  render: (r: AddResult) => [endpointLine(r), `  secret (shown once): ${r.secret}`, `  ${r.secret_note}`].join("\n"),
});

const listSchema = z.object({ agentId: agentIdSchema, tokenFile: tokenFileSchema });
export const listCommand = defineCommand({
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

const endpointSchema = z.object({
  agentId: agentIdSchema,
  endpointId: endpointIdSchema.check(z.describe("one of your endpoints (agent-webhook-cli list)")),
  tokenFile: tokenFileSchema,
});
type EndpointOptions = z.output<typeof endpointSchema>;

export const removeCommand = defineCommand({
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

export const enableCommand = defineCommand({
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

export const rotateSecretCommand = defineCommand({
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

export const deliveriesCommand = defineCommand({
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
