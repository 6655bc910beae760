// An agent's outbound webhook endpoints: add (the secret is shown once), list, remove, enable again, and the
// recent delivery attempts. Every call is authenticated as the owner; another agent's endpoint is NOT_FOUND.
import { randomBytes } from "node:crypto";
import { AppError } from "../../errors.ts";
import type {
  StoreTx,
  WebhookAttemptRecord,
  WebhookEndpointRecord,
  WebhookEventKind,
  WebhookEventState,
} from "../../store/port.ts";
import { type Deps, hostIdOf, iso } from "../deps.ts";
import { enterMesh, meetCaller, withPresence, writePresence } from "../mesh/live-session.ts";
import { displayUrl, webhookUrlProblem } from "./url.ts";

/** Each agent may keep this many endpoints: every event of a kind is one outbox row per endpoint that receives it. */
export const MAX_ENDPOINTS_PER_AGENT = 10;

/** Standard Webhooks secret: whsec_ + base64 of 32 random bytes. */
export const mintEndpointSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

export interface EndpointView {
  id: string;
  url: string;
  events: WebhookEventKind[];
  state: "active" | "disabled";
  disabled_reason: string | null;
  allow_private: boolean;
  failed_streak: number;
  events_by_state: Record<WebhookEventState, number>;
  created_at: string;
  updated_at: string;
}

export interface AttemptView {
  event_id: string;
  endpoint_id: string;
  type: string;
  attempt: number;
  worker_id: string;
  started_at: string;
  duration_ms: number | null;
  status_code: number | null;
  error_kind: string | null;
  outcome: string | null;
}

export const attemptView = (a: WebhookAttemptRecord): AttemptView => ({
  event_id: a.eventId,
  endpoint_id: a.endpointId,
  type: a.eventType,
  attempt: a.attempt,
  worker_id: a.workerId,
  started_at: iso(a.startedAt),
  duration_ms: a.durationMs,
  status_code: a.statusCode,
  error_kind: a.errorKind,
  outcome: a.outcome,
});

export const endpointView = async (tx: StoreTx, e: WebhookEndpointRecord): Promise<EndpointView> => ({
  id: e.id,
  url: displayUrl(e.url),
  events: e.events,
  state: e.state,
  disabled_reason: e.disabledReason,
  allow_private: e.allowPrivate,
  failed_streak: e.failedStreak,
  events_by_state: await tx.webhooks.eventCounts(e.id),
  created_at: iso(e.createdAt),
  updated_at: iso(e.updatedAt),
});

/** The caller's own endpoint, or NOT_FOUND (another agent's endpoint is not told apart from a missing one). */
const ownEndpoint = async (tx: StoreTx, agentId: string, id: string, lock = false): Promise<WebhookEndpointRecord> => {
  const endpoint = await tx.webhooks.getEndpoint(id, lock);
  if (!endpoint || endpoint.owner !== agentId) {
    throw new AppError("NOT_FOUND", `${agentId} has no webhook endpoint ${id}`, {
      hint: `agent-webhook-cli list --agent-id ${agentId} shows yours`,
    });
  }
  return endpoint;
};

interface Caller {
  agentId: string;
  token: string | undefined;
}

export interface AddInput extends Caller {
  url: string;
  events: WebhookEventKind[];
  allowPrivate: boolean;
}

export type AddResult = EndpointView & { secret: string; secret_note: string };

export const addEndpoint = (deps: Deps, input: AddInput): Promise<AddResult> => {
  // The CLI's schema checked this already; the rule is repeated here so no other caller can store a bad URL.
  const problem = webhookUrlProblem(input.url, input.allowPrivate);
  if (problem) throw new AppError("INVALID_INPUT", `--url: ${problem}; nothing was written`);
  return deps.store.write(
    async (tx) => {
      const caller = await meetCaller(deps, tx, input.agentId, input.token);
      // The cap is counted and the endpoint added under the owner's agent row (taken first, as in the one lock order):
      // another add for the same owner waits here, then counts this one.
      await tx.mesh.lockAgents([input.agentId]);
      await writePresence(deps, tx, caller);
      const existing = await tx.webhooks.listEndpoints(input.agentId, MAX_ENDPOINTS_PER_AGENT + 1);
      if (existing.length >= MAX_ENDPOINTS_PER_AGENT) {
        throw new AppError("CONFLICT", `${input.agentId} has ${existing.length} webhook endpoints, the most an agent may keep`, {
          hint: `remove one first: agent-webhook-cli remove --agent-id ${input.agentId} --endpoint-id <id>`,
        });
      }
      const endpoint: WebhookEndpointRecord = {
        id: deps.newId("whk"),
        owner: input.agentId,
        url: input.url,
        events: [...new Set(input.events)],
        secret: mintEndpointSecret(),
        previousSecret: null,
        previousSecretUntil: null,
        allowPrivate: input.allowPrivate,
        // Private addresses are this host's: only its worker may reach them (a shared store serves other hosts too).
        privateHost: input.allowPrivate ? hostIdOf(deps) : null,
        state: "active",
        disabledReason: null,
        failedStreak: 0,
        createdAt: deps.now(),
        updatedAt: deps.now(),
      };
      await tx.webhooks.insertEndpoint(endpoint);
      return {
        ...(await endpointView(tx, endpoint)),
        secret: endpoint.secret,
        secret_note:
          "shown once: keep it where the receiver verifies signatures; it cannot be printed again (remove the endpoint and add a new one if it is lost)",
      };
    },
    { agents: [input.agentId] },
  );
};

export interface ListResult {
  agent_id: string;
  endpoints: EndpointView[];
  warning?: string;
}

export const listEndpoints = async (deps: Deps, input: Caller): Promise<ListResult> => {
  const { value, warning } = await withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId, input.token, false, renew);
    const endpoints = await tx.webhooks.listEndpoints(input.agentId, MAX_ENDPOINTS_PER_AGENT);
    const views: EndpointView[] = [];
    for (const e of endpoints) views.push(await endpointView(tx, e));
    return { agent_id: input.agentId, endpoints: views };
  });
  return warning ? { ...value, warning } : value;
};

export interface RemoveResult {
  agent_id: string;
  id: string;
  removed: true;
  events_dropped: number;
}

/** Removes the endpoint with its events (pending ones are never sent) and their attempt records. */
export const removeEndpoint = (deps: Deps, input: Caller & { endpointId: string }): Promise<RemoveResult> =>
  deps.store.write(async (tx) => {
    await enterMesh(deps, tx, input.agentId, input.token, false);
    await ownEndpoint(tx, input.agentId, input.endpointId, true);
    const counts = await tx.webhooks.eventCounts(input.endpointId);
    await tx.webhooks.deleteEndpoint(input.endpointId);
    return { agent_id: input.agentId, id: input.endpointId, removed: true, events_dropped: counts.pending };
  });

export type EnableResult = EndpointView & { agent_id: string; changed: boolean };

/** A disabled endpoint active again: its streak starts over and the events it kept pending are sent. */
export const enableEndpoint = (deps: Deps, input: Caller & { endpointId: string }): Promise<EnableResult> =>
  deps.store.write(async (tx) => {
    await enterMesh(deps, tx, input.agentId, input.token, false);
    const endpoint = await ownEndpoint(tx, input.agentId, input.endpointId, true);
    const changed = endpoint.state !== "active";
    if (changed) await tx.webhooks.setEndpointState(endpoint.id, "active", null, deps.now());
    const after = (await tx.webhooks.getEndpoint(endpoint.id)) as WebhookEndpointRecord;
    return { agent_id: input.agentId, changed, ...(await endpointView(tx, after)) };
  });

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export type RotateResult = EndpointView & {
  agent_id: string;
  secret: string;
  secret_note: string;
  previous_secret_until: string;
};

/** A new secret, shown once; the old one signs beside it for ROTATION_OVERLAP_MS, then stops. */
export const rotateSecret = (deps: Deps, input: Caller & { endpointId: string }): Promise<RotateResult> =>
  deps.store.write(async (tx) => {
    await enterMesh(deps, tx, input.agentId, input.token, false);
    const endpoint = await ownEndpoint(tx, input.agentId, input.endpointId, true);
    const secret = mintEndpointSecret();
    const until = deps.now() + ROTATION_OVERLAP_MS;
    await tx.webhooks.rotateSecret(endpoint.id, secret, until, deps.now());
    const after = (await tx.webhooks.getEndpoint(endpoint.id)) as WebhookEndpointRecord;
    return {
      agent_id: input.agentId,
      ...(await endpointView(tx, after)),
      secret,
      previous_secret_until: iso(until),
      secret_note:
        "shown once; until previous_secret_until every request carries two v1 signatures (new and old secret), so the receiver can switch over; then only the new one",
    };
  });

export interface DeliveriesResult {
  agent_id: string;
  endpoint_id: string | null;
  attempts: AttemptView[];
  warning?: string;
}

export const listDeliveries = async (
  deps: Deps,
  input: Caller & { endpointId?: string | undefined; limit: number },
): Promise<DeliveriesResult> => {
  const { value, warning } = await withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId, input.token, false, renew);
    if (input.endpointId !== undefined) await ownEndpoint(tx, input.agentId, input.endpointId);
    const attempts = await tx.webhooks.attempts(
      input.endpointId !== undefined ? { endpointId: input.endpointId } : { owner: input.agentId },
      input.limit,
    );
    return { agent_id: input.agentId, endpoint_id: input.endpointId ?? null, attempts: attempts.map(attemptView) };
  });
  return warning ? { ...value, warning } : value;
};

export interface WebhooksOverview {
  endpoints: (EndpointView & { owner: string })[];
  attempts: AttemptView[];
}

/** Every owner's endpoints and the most recent attempts (the console; no secrets, URLs without their query). */
export const webhooksOverview = (deps: Deps, limits: { endpoints: number; attempts: number }): Promise<WebhooksOverview> =>
  deps.store.read(async (tx) => {
    const endpoints: WebhooksOverview["endpoints"] = [];
    for (const e of await tx.webhooks.listEndpoints(null, limits.endpoints)) {
      endpoints.push({ ...(await endpointView(tx, e)), owner: e.owner });
    }
    const attempts = (await tx.webhooks.attempts({ owner: null }, limits.attempts)).map(attemptView);
    return { endpoints, attempts };
  });
