// What the outbound-webhook contract suites share: a mesh with the agents they use, a delivery policy with short
// numbers, and the calls they make as those agents (add an endpoint, send, read the outbox, claim, settle).

import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import {
  claimDeliveries,
  type DeliveryPolicy,
  settleDelivery,
} from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import { addEndpoint } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import type { WebhookEventKind } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "./mesh.ts";

export const POLICY: DeliveryPolicy = { backoffMs: [1000, 4000], disableAfter: 2, leaseMs: 30_000 };
export const OK = { ok: true, statusCode: 204, errorKind: null, durationMs: 3 };
export const HTTP_500 = { ok: false, statusCode: 500, errorKind: "http_status", durationMs: 3 };
export const noJitter = () => 0;

/** A mesh on the store with the suites' agents joined: owner, sender, blocked and other. */
export const openWebhookMesh = async (storeName: "sqlite" | "postgres"): Promise<MeshAgents> => {
  const mesh = await openMeshAgents(storeName);
  for (const agent of ["owner", "sender", "blocked", "other"]) await mesh.join(agent);
  return mesh;
};

/** The calls the suites make; `mesh` is read at each call, so it may be opened in a beforeAll. */
export const webhookCalls = (mesh: () => MeshAgents) => {
  const deps = () => mesh().deps();
  const add = (agentId: string, events: WebhookEventKind[]) =>
    addEndpoint(deps(), {
      agentId,
      token: mesh().token(agentId),
      url: "https://hooks.example.com/a?key=1",
      events,
      allowPrivate: false,
    });
  const send = (from: string, to: string, body = "the secret body text") => {
    mesh().clock.advance(1000);
    return sendMessage(deps(), { from, token: mesh().token(from), recipients: { kind: "to", agentIds: [to] }, body });
  };
  const events = (endpointId: string) =>
    mesh().target.sql(
      "SELECT id, type, payload, state, attempts FROM webhook_events WHERE endpoint_id = $1 ORDER BY created_at, id",
      [endpointId],
    );
  const claim = (workerId: string, limit = 100) => claimDeliveries(deps(), { workerId, limit, policy: POLICY });
  /** Claims and settles every due event of `endpointId` with `result`; returns how many it settled. */
  const settleDue = async (endpointId: string, result: typeof OK | typeof HTTP_500) => {
    const claimed = (await claim("w1")).filter((c) => c.endpoint.id === endpointId);
    for (const c of claimed) await settleDelivery(deps(), c, result, POLICY, noJitter);
    return claimed.length;
  };
  return { deps, add, send, events, claim, settleDue };
};
