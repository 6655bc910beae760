import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type AddResult, addEndpoint, MAX_ENDPOINTS_PER_AGENT } from "../../domain/outbound-webhooks/endpoints.ts";
import { MAX_WEBHOOK_URL_LENGTH, webhookUrlProblem } from "../../domain/outbound-webhooks/url.ts";
import { WEBHOOK_EVENT_KINDS } from "../../store/port.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { ENDPOINT_VIEW, ENV, endpointLine, withCaller } from "./webhook-shared.ts";

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

export default defineCommand({
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
