// Outbound webhook endpoints against every store: a disabled endpoint keeps its pending events and enable sends them,
// removing drops them; an agent's endpoints are bounded, its own (another agent's are NOT_FOUND) and go when its name
// is unregistered; a rotated secret signs beside the new one for the overlap; a private endpoint is delivered only
// from the host it was added on.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { unregisterAgent } from "../../app/agent_computer/src/domain/agents/unregister.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { claimDeliveries, deliveryDue, settleDelivery } from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import {
  addEndpoint,
  enableEndpoint,
  listDeliveries,
  listEndpoints,
  MAX_ENDPOINTS_PER_AGENT,
  ROTATION_OVERLAP_MS,
  removeEndpoint,
  rotateSecret,
} from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import type { ClaimedWebhookEvent } from "../../app/agent_computer/src/store/port.ts";
import { failure, type MeshAgents } from "../helpers/mesh.ts";
import { HTTP_500, openWebhookMesh, POLICY, webhookCalls } from "../helpers/outbound-webhooks.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("outbound webhook endpoints [%s]", (storeName) => {
  let mesh: MeshAgents;
  const { deps, add, send, events, claim } = webhookCalls(() => mesh);

  beforeAll(async () => {
    mesh = await openWebhookMesh(storeName);
  });
  afterAll(async () => mesh?.close());

  test("pending events of a disabled endpoint are kept and sent once it is enabled; removing drops them", async () => {
    const endpoint = await add("other", ["message"]);
    await send("sender", "other", "a");
    await send("sender", "other", "b");
    // Fail the first event to the end with the second still pending: the streak of 2 is reached on the next one.
    await mesh.target.sql("UPDATE webhook_endpoints SET failed_streak = 1 WHERE id = $1", [endpoint.id]);
    const [first] = (await claim("w1", 1)).filter((c) => c.endpoint.id === endpoint.id);
    await mesh.target.sql("UPDATE webhook_events SET attempts = 3 WHERE id = $1", [first?.event.id]);
    await mesh.target.sql("UPDATE webhook_attempts SET attempt = 3 WHERE event_id = $1", [first?.event.id]);
    const settled = await settleDelivery(deps(), { ...(first as ClaimedWebhookEvent), attempt: 3 }, HTTP_500, POLICY);
    expect(settled.disabled?.endpointId).toBe(endpoint.id);
    mesh.clock.advance(60_000);
    expect(await claim("w1")).toEqual([]);
    await enableEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
    const resumed = await claim("w1");
    expect(resumed.map((c) => c.event.id)).toHaveLength(1);
    expect(resumed[0]?.event.id).not.toBe(first?.event.id);
    const removed = await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
    expect(removed.events_dropped).toBe(1);
    expect(await events(endpoint.id)).toEqual([]);
    expect(
      Number((await mesh.target.sql("SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = $1", [endpoint.id]))[0]?.n),
    ).toBe(0);
  });

  test("an agent keeps at most MAX_ENDPOINTS_PER_AGENT endpoints; one more is CONFLICT and writes nothing", async () => {
    const added = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_AGENT; i++) added.push(await add("sender", ["message"]));
    expect(await failure(add("sender", ["message"]))).toMatchObject({ code: "CONFLICT" });
    expect(await mesh.count("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE owner = 'sender'")).toBe(MAX_ENDPOINTS_PER_AGENT);
    for (const e of added) await removeEndpoint(deps(), { agentId: "sender", token: mesh.token("sender"), endpointId: e.id });
  });

  test("another agent's endpoint is NOT_FOUND to every call, and the owner's token is required", async () => {
    const endpoint = await add("owner", ["message"]);
    const as = (agentId: string) => ({ agentId, token: mesh.token(agentId), endpointId: endpoint.id });
    expect(await failure(removeEndpoint(deps(), as("other")))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(enableEndpoint(deps(), as("other")))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(listDeliveries(deps(), { ...as("other"), limit: 5 }))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(removeEndpoint(deps(), { ...as("owner"), token: "act_wrong" }))).toMatchObject({ code: "AUTH_FAILED" });
    expect((await listEndpoints(deps(), { agentId: "owner", token: mesh.token("owner") })).endpoints.map((e) => e.id)).toContain(
      endpoint.id,
    );
    await removeEndpoint(deps(), as("owner"));
  });

  test("an unregistered name takes its endpoints, their events and attempts with it", async () => {
    await mesh.join("leaver");
    const endpoint = await add("leaver", ["message"]);
    await send("sender", "leaver");
    expect((await claim("w1")).some((c) => c.endpoint.id === endpoint.id)).toBe(true);
    await unregisterAgent(deps(), { agentId: "leaver", token: mesh.token("leaver") });
    for (const table of [
      "webhook_endpoints WHERE id",
      "webhook_events WHERE endpoint_id",
      "webhook_attempts WHERE endpoint_id",
    ]) {
      expect(Number((await mesh.target.sql(`SELECT COUNT(*) AS n FROM ${table} = $1`, [endpoint.id]))[0]?.n), table).toBe(0);
    }
  });

  test("rotate-secret keeps the old secret beside the new one for the overlap, and a claim carries both", async () => {
    const endpoint = await add("other", ["message"]);
    const rotated = await rotateSecret(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.previous_secret_until).toBe(new Date(mesh.clock.now + ROTATION_OVERLAP_MS).toISOString());
    await send("sender", "other");
    const [claimed] = (await claim("w1")).filter((c) => c.endpoint.id === endpoint.id);
    expect(claimed?.endpoint).toMatchObject({
      secret: rotated.secret,
      previousSecret: endpoint.secret,
      previousSecretUntil: mesh.clock.now + ROTATION_OVERLAP_MS - 1000,
    });
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
  });

  test("a private endpoint is delivered only by a worker on the host it was added on; a public one by any", async () => {
    const elsewhere = (): Deps => ({ ...deps(), host: "another-host" });
    const privateEndpoint = await addEndpoint(deps(), {
      agentId: "other",
      token: mesh.token("other"),
      url: "http://127.0.0.1:9000/hook",
      events: ["message"],
      allowPrivate: true,
    });
    await send("sender", "other", "for the private endpoint");
    expect(await deliveryDue(elsewhere())).toBe(false);
    expect(await claimDeliveries(elsewhere(), { workerId: "w-elsewhere", limit: 100, policy: POLICY })).toEqual([]);
    expect(await deliveryDue(deps())).toBe(true);
    const here = await claimDeliveries(deps(), { workerId: "w-here", limit: 100, policy: POLICY });
    expect(here.map((c) => c.endpoint.id)).toEqual([privateEndpoint.id]);
    expect(here[0]?.endpoint.privateHost).toBe("test-host");
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: privateEndpoint.id });

    const publicEndpoint = await add("other", ["message"]);
    await send("sender", "other", "for the public endpoint");
    const anywhere = await claimDeliveries(elsewhere(), { workerId: "w-elsewhere", limit: 100, policy: POLICY });
    expect(anywhere.map((c) => c.endpoint.id)).toEqual([publicEndpoint.id]);
    expect(anywhere[0]?.endpoint.privateHost).toBeNull();
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: publicEndpoint.id });
  });
});
