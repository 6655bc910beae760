// Fair claims of outbound webhook events, on each store: an endpoint is sent one attempt at a time (no worker claims
// its next event while one is in flight, however many workers race for it), and a claim gives one owner at most its
// per-owner share, every owner's first event before anyone's second.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import {
  claimDeliveries,
  type DeliveryPolicy,
  deliveryDue,
  settleDelivery,
} from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import { addEndpoint, removeEndpoint } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import type { ClaimedWebhookEvent, Store } from "../../app/agent_computer/src/store/port.ts";
import { DUE_EXISTS_SQL, dueHeadsSql, ENDPOINT_BUSY_SQL } from "../../app/agent_computer/src/store/sql/webhook-claim.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const POLICY: DeliveryPolicy = { backoffMs: [1000], disableAfter: 100, leaseMs: 30_000 };
const OK = { ok: true, statusCode: 204, errorKind: null, durationMs: 3 };

describe.each(storeNames)("fair webhook claims [%s]", (storeName) => {
  let mesh: MeshAgents;
  const added: { owner: string; id: string }[] = [];
  const deps = () => mesh.deps();
  const add = async (owner: string) => {
    const endpoint = await addEndpoint(deps(), {
      agentId: owner,
      token: mesh.token(owner),
      url: `https://hooks.example.com/${owner}/${added.length}`,
      events: ["message"],
      allowPrivate: false,
    });
    added.push({ owner, id: endpoint.id });
    return endpoint.id;
  };
  const send = (to: string, body: string) => {
    mesh.clock.advance(1000);
    return sendMessage(deps(), { from: "sender", token: mesh.token("sender"), recipients: { kind: "to", agentIds: [to] }, body });
  };
  const eventIds = async (endpointId: string) =>
    (await mesh.target.sql("SELECT id FROM webhook_events WHERE endpoint_id = $1 ORDER BY created_at, id", [endpointId])).map(
      (r) => String(r.id),
    );
  const claim = (workerId: string, options: { limit?: number; perOwner?: number; held?: Record<string, number> } = {}) =>
    claimDeliveries(deps(), {
      workerId,
      limit: options.limit ?? 100,
      policy: POLICY,
      perOwner: options.perOwner,
      inFlightByOwner: new Map(Object.entries(options.held ?? {})),
    });

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["slow", "live", "sender"]) await mesh.join(agent);
  });
  afterEach(async () => {
    for (const { owner, id } of added.splice(0))
      await removeEndpoint(deps(), { agentId: owner, token: mesh.token(owner), endpointId: id });
  });
  afterAll(async () => mesh?.close());

  test("an endpoint with an attempt in flight offers no other event to any worker until it is settled or its lease lapses", async () => {
    const slow = await add("slow");
    const live = await add("live");
    for (const n of [1, 2, 3]) await send("slow", `to slow ${n}`);
    await send("live", "to live");
    const [first, second] = await eventIds(slow);

    const claimed = await claim("w1");
    expect(claimed.map((c) => [c.endpoint.id, c.event.id])).toEqual([
      [slow, first],
      [live, (await eventIds(live))[0]],
    ]);
    // Two more events of the slow endpoint are due, but its first is in flight.
    expect(await claim("w2")).toEqual([]);
    expect(await deliveryDue(deps())).toBe(false);

    await settleDelivery(deps(), claimed[0] as ClaimedWebhookEvent, OK, POLICY);
    const next = await claim("w2");
    expect(next.map((c) => c.event.id)).toEqual([second]);
    expect(await claim("w3")).toEqual([]);
    // A worker that died holds it until the lease lapses; then the same event is claimed again, not the one after.
    mesh.clock.advance(POLICY.leaseMs + 1);
    expect((await claim("w3")).map((c) => [c.event.id, c.attempt])).toEqual([
      [second, 2],
      [(await eventIds(live))[0], 2],
    ]);
  });

  test("a claim gives one owner at most its share less what the worker holds, every owner's first before anyone's second", async () => {
    const slowEndpoints = [await add("slow"), await add("slow"), await add("slow"), await add("slow"), await add("slow")];
    const live = await add("live");
    await send("slow", "to every slow endpoint");
    await send("live", "to live, the newest event");

    // Oldest first would give two of slow's; fair gives slow's oldest and live's.
    const pair = await claim("w1", { limit: 2, perOwner: 2 });
    expect(pair.map((c) => c.endpoint.owner)).toEqual(["slow", "live"]);
    expect(pair[1]?.endpoint.id).toBe(live);
    // The worker holds one of slow's: one more, however many are due and however large the limit.
    const one = await claim("w1", { perOwner: 2, held: { slow: 1 } });
    expect(one.map((c) => c.endpoint.owner)).toEqual(["slow"]);
    expect(await claim("w1", { perOwner: 2, held: { slow: 2 } })).toEqual([]);
    // Another worker holds none of slow's: its own share.
    const other = await claim("w2", { perOwner: 2 });
    expect(other.map((c) => c.endpoint.owner)).toEqual(["slow", "slow"]);
    const claimedEndpoints = [...pair, ...one, ...other].map((c) => c.endpoint.id).filter((id) => id !== live);
    expect(new Set(claimedEndpoints).size).toBe(4);
    expect(slowEndpoints).toEqual(expect.arrayContaining(claimedEndpoints));
  });

  test("workers racing through stores of their own claim one event of a busy endpoint between them, round after round", async () => {
    const endpoint = await add("slow");
    for (let n = 0; n < 12; n++) await send("slow", `queued ${n}`);
    const workers: Store[] = await Promise.all(Array.from({ length: 8 }, () => mesh.target.open()));
    try {
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(
          workers.map((store, i) =>
            claimDeliveries({ ...deps(), store }, { workerId: `racer-${i}`, limit: 10, policy: POLICY, perOwner: 2 }),
          ),
        );
        const claimed = results.flat();
        expect(claimed.map((c) => c.endpoint.id)).toEqual([endpoint]);
        await settleDelivery(deps(), claimed[0] as ClaimedWebhookEvent, OK, POLICY);
      }
    } finally {
      await Promise.all(workers.map((s) => s.close()));
    }
    const [row] = await mesh.target.sql(
      "SELECT COUNT(*) AS n FROM webhook_events WHERE endpoint_id = $1 AND state = 'delivered'",
      [endpoint],
    );
    expect(Number(row?.n)).toBe(5);
  });

  test("a claim reads each endpoint through its own indexes, never down the whole outbox", async () => {
    const params: Record<string, unknown[]> = {
      heads: [0, "test-host", 2, 8, "slow"],
      exists: [0, "test-host"],
      busy: ["whk_x", 0],
    };
    const queries: Record<string, string> = { heads: dueHeadsSql(1), exists: DUE_EXISTS_SQL, busy: ENDPOINT_BUSY_SQL };
    for (const [name, sql] of Object.entries(queries)) {
      let plan: string;
      if (storeName === "sqlite") {
        const rows = await mesh.target.sql(`EXPLAIN QUERY PLAN ${sql.replace(/\$(\d+)/g, "?$1")}`, params[name]);
        plan = rows.map((r) => String(r.detail)).join("\n");
        expect(plan, name).not.toMatch(/SCAN (webhook_events|ev|held)(?! USING)/);
      } else {
        // A small table is cheaper to scan, so the planner is told that scans are out, as on a large outbox.
        const { SQL } = await import("bun");
        const db = new SQL({ url: mesh.target.env.AGENT_COMPUTER_DATABASE_URL as string, max: 1 });
        try {
          await db.unsafe("SET enable_seqscan = off");
          const rows = await db.unsafe(`EXPLAIN ${sql}`, params[name]);
          plan = [...rows].map((r) => String((r as Record<string, unknown>)["QUERY PLAN"])).join("\n");
        } finally {
          await db.close();
        }
      }
      expect(plan, name).toContain("webhook_events_leased");
      if (name !== "busy") expect(plan, name).toContain("webhook_events_endpoint_due");
    }
  });
});
