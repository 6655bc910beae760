// Outbound webhook retention against every store: events that ended longer ago than the retention period are pruned
// with their attempts, through their own index, in bounded batches; pending ones never are.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type DeliveryPolicy, settleDelivery } from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import { removeEndpoint } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import { pruneEndedDeliveries } from "../../app/agent_computer/src/domain/outbound-webhooks/retention.ts";
import type { ClaimedWebhookEvent } from "../../app/agent_computer/src/store/port.ts";
import { ENDED_EVENTS_SQL } from "../../app/agent_computer/src/store/sql/outbound-webhooks.ts";
import type { MeshAgents } from "../helpers/mesh.ts";
import { HTTP_500, noJitter, OK, openWebhookMesh, POLICY, webhookCalls } from "../helpers/outbound-webhooks.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("outbound webhook retention [%s]", (storeName) => {
  let mesh: MeshAgents;
  const { deps, add, send, events, claim } = webhookCalls(() => mesh);

  beforeAll(async () => {
    mesh = await openWebhookMesh(storeName);
  });
  afterAll(async () => mesh?.close());

  test("retention finds the oldest ended events through their own index, never by reading the whole outbox", async () => {
    let plan: string;
    if (storeName === "sqlite") {
      const explain = ENDED_EVENTS_SQL.replace("$1", "?1").replace("$2", "?2");
      const rows = await mesh.target.sql(`EXPLAIN QUERY PLAN ${explain}`, [0, 10]);
      plan = rows.map((r) => String(r.detail)).join("\n");
      expect(plan).not.toMatch(/SCAN webhook_events(?! USING)/);
      expect(plan).not.toContain("TEMP B-TREE");
    } else {
      // A small table is cheaper to scan, so the planner is told that scans are out, as on a large outbox.
      const { SQL } = await import("bun");
      const db = new SQL({ url: mesh.target.env.AGENT_COMPUTER_DATABASE_URL as string, max: 1 });
      try {
        await db.unsafe("SET enable_seqscan = off");
        const rows = await db.unsafe(`EXPLAIN ${ENDED_EVENTS_SQL}`, [0, 10]);
        plan = [...rows].map((r) => String((r as Record<string, unknown>)["QUERY PLAN"])).join("\n");
      } finally {
        await db.close();
      }
      expect(plan).not.toContain("Sort");
    }
    expect(plan).toContain("webhook_events_ended");
  });

  test("retention prunes delivered and failed events that ended before the period, with their attempts; pending ones stay", async () => {
    const DAY = 86_400_000;
    const endpoint = await add("other", ["message"]);
    for (const body of ["delivered", "failed", "awaiting retry", "in flight"]) await send("sender", "other", body);
    // One endpoint is sent one attempt at a time: each event is claimed once the one before it is settled.
    const next = async () => {
      const claimed = (await claim("w1")).filter((c) => c.endpoint.id === endpoint.id);
      expect(claimed).toHaveLength(1);
      return claimed[0] as ClaimedWebhookEvent;
    };
    const lastTry: DeliveryPolicy = { ...POLICY, backoffMs: [], disableAfter: 100 };
    const delivered = await next();
    expect((await settleDelivery(deps(), delivered, OK, POLICY)).event?.state).toBe("delivered");
    const failed = await next();
    expect((await settleDelivery(deps(), failed, HTTP_500, lastTry)).event?.state).toBe("failed");
    const retrying = await next();
    expect((await settleDelivery(deps(), retrying, HTTP_500, POLICY)).event?.state).toBe("pending");
    // The retry is not due yet, so the last event is next; it stays in flight.
    const inFlight = await next();
    expect(inFlight.event.id).not.toBe(retrying.event.id);

    // Eight days on: one more event ends now, inside the period.
    mesh.clock.advance(8 * DAY);
    await send("sender", "other", "recent");
    // The two pending events come first again (a lapsed lease, a retry now due); each fails once more and stays
    // pending, and then the recent one is claimed.
    const earlier = new Set([delivered, failed, retrying, inFlight].map((c) => c.event.id));
    let recent = await next();
    for (let i = 0; i < 2 && earlier.has(recent.event.id); i++) {
      expect((await settleDelivery(deps(), recent, HTTP_500, POLICY, noJitter)).event?.state).toBe("pending");
      recent = await next();
    }
    expect(earlier.has(recent.event.id)).toBe(false);
    expect((await settleDelivery(deps(), recent, OK, POLICY)).event?.state).toBe("delivered");
    const attemptsOf = async (eventId: string | undefined) =>
      Number((await mesh.target.sql("SELECT COUNT(*) AS n FROM webhook_attempts WHERE event_id = $1", [eventId]))[0]?.n);
    expect(await attemptsOf(delivered?.event.id)).toBe(1);

    // One batch per round: the round stops at its limit and says more is left; the next round finishes.
    expect(await pruneEndedDeliveries(deps(), 7, { batch: 1, batches: 1 })).toEqual({ pruned: 1, more: true });
    expect(await pruneEndedDeliveries(deps(), 7, { batch: 1 })).toEqual({ pruned: 1, more: false });
    expect(await pruneEndedDeliveries(deps(), 7)).toEqual({ pruned: 0, more: false });

    const kept = await events(endpoint.id);
    expect(kept.map((e) => e.id)).toEqual([retrying.event.id, inFlight.event.id, recent.event.id]);
    expect(kept.map((e) => e.state)).toEqual(["pending", "pending", "delivered"]);
    for (const gone of [delivered, failed]) expect(await attemptsOf(gone?.event.id)).toBe(0);
    for (const stays of [inFlight, retrying, recent]) expect(await attemptsOf(stays?.event.id)).toBeGreaterThan(0);

    // A longer period keeps the recent event; a pending event is never pruned however old it is.
    mesh.clock.advance(30 * DAY);
    expect(await pruneEndedDeliveries(deps(), 60)).toEqual({ pruned: 0, more: false });
    expect(await pruneEndedDeliveries(deps(), 7)).toEqual({ pruned: 1, more: false });
    expect((await events(endpoint.id)).map((e) => e.id)).toEqual([retrying.event.id, inFlight.event.id]);
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
  });
});
