// Every authenticated call asks whether any open session's ttl has run out (store/sql/session-expiry-sql.ts). The
// answer must cost one index entry whatever the team's size: on PostgreSQL under the generic plan a long-lived
// connection switches to after five executions, and on SQLite. 2,000 open sessions make a scan visible.
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { CALLER_STATE_SQL } from "../../app/agent_computer/src/store/sql/mesh.ts";
import { EXPIRY_DUE_SQL } from "../../app/agent_computer/src/store/sql/session-expiry-sql.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const OPEN_SESSIONS = 2_000;
const NOW = 1_900_000_000_000;
const LATER = NOW + 3_600_000;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The nodes of the generic plan PostgreSQL runs for `statement`, executed once with `params`. */
const genericPlan = async (url: string, statement: string, params: string): Promise<PlanNode[]> => {
  const db = new SQL({ url, max: 1 });
  try {
    return await db.begin(async (tx) => {
      await tx.unsafe("SET LOCAL plan_cache_mode = force_generic_plan");
      await tx.unsafe(`PREPARE expiry_probe AS ${statement}`);
      const [row] = (await tx.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE expiry_probe(${params})`)) as Record<
        string,
        unknown
      >[];
      await tx.unsafe("DEALLOCATE expiry_probe");
      const raw = Object.values(row ?? {})[0];
      const [explained] = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
      return nodesOf((explained as { Plan: PlanNode }).Plan);
    });
  } finally {
    await db.close();
  }
};

describe.each(storeNames)("the session-expiry check stays one index entry [%s]", (storeName) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    store = await target.open();
    await target.sql(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${OPEN_SESSIONS})
       INSERT INTO agents (name, token_hash, created_at, updated_at, last_seen_at, holder_since, name_key)
       SELECT 'fleet-' || i, 'x', 0, 0, 0, 0, 'fleet-' || i FROM n`,
    );
    await target.sql(
      `INSERT INTO sessions (id, agent_name, host, ttl_seconds, started_at, last_activity_at, expires_at, watermark_seq)
       SELECT 's-' || name, name, 'host-1', 3600, 0, 0, ${LATER} + LENGTH(name), 0 FROM agents`,
    );
    await target.sql("ANALYZE sessions");
  });
  afterAll(async () => {
    await store?.close();
    await target?.dispose();
  });

  const expiryDue = async () => (await store.read((tx) => tx.mesh.callerState("fleet-7", NOW)))?.expiryDue;

  test("it answers as before: false while none ran out, true once one did, and the UPDATE ends exactly that one", async () => {
    expect(await expiryDue()).toBe(false);
    expect(await store.write((tx) => tx.mesh.endExpiredSessions(NOW))).toEqual([]);
    await target.sql("UPDATE sessions SET expires_at = $1 WHERE agent_name = 'fleet-1234'", [NOW - 1]);
    expect(await expiryDue()).toBe(true);
    const ended = await store.write((tx) => tx.mesh.endExpiredSessions(NOW));
    expect(ended.map((s) => s.agentId)).toEqual(["fleet-1234"]);
    expect(await expiryDue()).toBe(false);
  });

  test("with no open session at all it answers false, not NULL", async () => {
    const other = await createStoreTarget(storeName);
    const empty = await other.open();
    try {
      await other.sql(
        "INSERT INTO agents (name, token_hash, created_at, updated_at, last_seen_at, holder_since, name_key) VALUES ('solo', 'x', 0, 0, 0, 0, 'solo')",
      );
      expect((await empty.read((tx) => tx.mesh.callerState("solo", NOW)))?.expiryDue).toBe(false);
      expect(await empty.write((tx) => tx.mesh.endExpiredSessions(NOW))).toEqual([]);
    } finally {
      await empty.close();
      await other.dispose();
    }
  });

  test("its plan reads no more than a few session rows, never a scan of the open sessions", async () => {
    for (const [statement, params] of [
      [CALLER_STATE_SQL, `'fleet-7', ${NOW}`],
      [EXPIRY_DUE_SQL, `${NOW}`],
    ] as const) {
      if (storeName === "postgres") {
        const nodes = (await genericPlan(target.env.AGENT_COMPUTER_DATABASE_URL as string, statement, params)).filter(
          (n) => n["Relation Name"] === "sessions",
        );
        expect(nodes.map((n) => n["Node Type"])).not.toContain("Seq Scan");
        const examined = nodes.reduce(
          (sum, n) => sum + ((n["Actual Rows"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 1),
          0,
        );
        expect(examined).toBeLessThanOrEqual(2);
      } else {
        const plan = await target.sql(`EXPLAIN QUERY PLAN ${statement}`, statement.includes("$2") ? ["fleet-7", NOW] : [NOW]);
        const details = plan.map((r) => String(r.detail));
        expect(details.filter((d) => /^SCAN sessions/.test(d))).toEqual([]);
        expect(details.some((d) => d.includes("sessions_open_by_expiry"))).toBe(true);
      }
    }
  });
});
