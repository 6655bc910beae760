// PostgreSQL only (SQLite runs one write transaction at a time, so there is no race to lose): a success settled
// while another transaction holds the endpoint row and lengthens its failure streak must see that streak and reset
// it. The success settle takes the endpoint row lock first; reading the streak without it, the success saw the old
// value, skipped the reset, and the failure's streak survived the success.
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import {
  claimDeliveries,
  type DeliveryPolicy,
  settleDelivery,
} from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import { addEndpoint } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { pgUrl } from "../helpers/stores.ts";

const POLICY: DeliveryPolicy = { backoffMs: [1000], disableAfter: 10, leaseMs: 30_000 };
const OK = { ok: true, statusCode: 204, errorKind: null, durationMs: 3 };

describe.runIf(pgUrl)("outbound webhooks [postgres]: a success settled beside a failure streak", () => {
  let mesh: MeshAgents;
  let holder: SQL;
  beforeAll(async () => {
    mesh = await openMeshAgents("postgres");
    for (const agent of ["owner", "sender"]) await mesh.join(agent);
    holder = new SQL(mesh.target.env.AGENT_COMPUTER_DATABASE_URL as string);
  });
  afterAll(async () => {
    await holder?.close();
    await mesh?.close();
  });

  test("the success waits for the endpoint row, then resets the streak the other transaction wrote", async () => {
    const deps = () => mesh.deps();
    const endpoint = await addEndpoint(deps(), {
      agentId: "owner",
      token: mesh.token("owner"),
      url: "https://hooks.example.com/a",
      events: ["message"],
      allowPrivate: false,
    });
    mesh.clock.advance(1000);
    await sendMessage(deps(), {
      from: "sender",
      token: mesh.token("sender"),
      recipients: { kind: "to", agentIds: ["owner"] },
      body: "hello",
    });
    const [claimed] = await claimDeliveries(deps(), { workerId: "w1", limit: 1, policy: POLICY });
    expect(claimed?.endpoint.id).toBe(endpoint.id);

    let settled = false;
    let running: ReturnType<typeof settleDelivery> | undefined;
    await holder.begin(async (tx) => {
      await tx.unsafe("SELECT failed_streak FROM webhook_endpoints WHERE id = $1 FOR UPDATE", [endpoint.id]);
      running = settleDelivery(deps(), claimed as NonNullable<typeof claimed>, OK, POLICY).finally(() => {
        settled = true;
      });
      // Hold the row until the success either finished or is waiting for it (a lock wait in pg_stat_activity).
      for (;;) {
        if (settled) break;
        // Asked from another connection: inside this transaction pg_stat_activity is a snapshot that never changes.
        const [waiting] = await mesh.target.sql(
          "SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if (Number(waiting?.n) > 0) break;
        await Bun.sleep(10);
      }
      await tx.unsafe("UPDATE webhook_endpoints SET failed_streak = 3 WHERE id = $1", [endpoint.id]);
    });
    const success = await running;
    expect(success?.event?.state).toBe("delivered");
    const [row] = await mesh.target.sql("SELECT failed_streak FROM webhook_endpoints WHERE id = $1", [endpoint.id]);
    expect(Number(row?.failed_streak)).toBe(0);
  });
});
