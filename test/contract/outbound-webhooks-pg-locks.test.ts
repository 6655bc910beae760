// Outbound webhooks under concurrency on PostgreSQL: sends to an agent (each enqueueing an event for its endpoint),
// a worker failing those events for good (each failure disables the endpoint and writes a notice to the same agent's
// inbox) and the agent enabling it again, all at once through stores of their own. None may fail and the server
// must detect no deadlock (a deadlock is re-run and succeeds, so only its counter shows it).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import {
  claimDeliveries,
  type DeliveryPolicy,
  settleDelivery,
} from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import { addEndpoint, enableEndpoint } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { deadlocksDetected, raceRounds } from "../helpers/pg-deadlocks.ts";
import { storeNames } from "../helpers/stores.ts";

const AGENTS = ["owner", "s1", "s2", "s3"];
const ROUNDS = 10;
/** No retries and a streak of one: every failure ends its event and disables the endpoint. */
const POLICY: DeliveryPolicy = { backoffMs: [], disableAfter: 1, leaseMs: 60_000 };
const FAILED = { ok: false, statusCode: 503, errorKind: "http_status", durationMs: 1 };

describe.skipIf(!storeNames.includes("postgres"))("outbound webhooks under concurrency [postgres]", () => {
  let mesh: MeshAgents;
  /** A call through a store (a connection pool) of its own, on the mesh's clock. */
  const depsOf = (store: Store): Deps => ({ ...mesh.deps(), store });
  let endpointId = "";

  beforeAll(async () => {
    mesh = await openMeshAgents("postgres");
    for (const agentId of AGENTS) await mesh.join(agentId, { ttlSeconds: 86_400 });
    const url = "https://hooks.example.com/owner";
    endpointId = (
      await addEndpoint(mesh.deps(), {
        agentId: "owner",
        token: mesh.token("owner"),
        url,
        events: ["message"],
        allowPrivate: false,
      })
    ).id;
  });
  afterAll(async () => mesh?.close());

  test("sends, failures that disable the endpoint with a notice, and enables at once: none fails, no deadlock", async () => {
    const send = (store: Store, from: string) =>
      sendMessage(depsOf(store), {
        from,
        token: mesh.token(from),
        recipients: { kind: "to", agentIds: ["owner", from === "s1" ? "s2" : "s1"] },
        body: "x",
      });
    const failAll = async (store: Store) => {
      for (const claimed of await claimDeliveries(depsOf(store), { workerId: "w", limit: 50, policy: POLICY })) {
        await settleDelivery(depsOf(store), claimed, FAILED, POLICY);
      }
    };
    const enable = (store: Store) => enableEndpoint(depsOf(store), { agentId: "owner", token: mesh.token("owner"), endpointId });
    const calls = [
      (s: Store) => send(s, "s1"),
      (s: Store) => send(s, "s2"),
      (s: Store) => send(s, "s3"),
      (s: Store) => send(s, "owner"),
      failAll,
      failAll,
      enable,
    ];
    const failures = await raceRounds(mesh.target, calls, ROUNDS, mesh.clock);
    let deadlocks: number | undefined;
    await mesh.reopen(async () => {
      deadlocks = await deadlocksDetected(mesh.target);
    });
    expect(failures).toEqual([]);
    expect(deadlocks).toBe(0);
    // The failures did happen: events ended failed, and the owner was told of at least one disable.
    const [failed] = await mesh.target.sql("SELECT COUNT(*) AS n FROM webhook_events WHERE state = 'failed'");
    expect(Number(failed?.n)).toBeGreaterThan(0);
    const [notices] = await mesh.target.sql(
      "SELECT COUNT(*) AS n FROM messages WHERE sender = 'agent-computer' AND body LIKE 'Webhook endpoint % was disabled%'",
    );
    expect(Number(notices?.n)).toBeGreaterThan(0);
  });
});
