// One lock order for agents' rows on PostgreSQL: agents messaging each other at the same moment (A to B while B
// sends to A, broadcasts, several recipients at once, tasks posted to each other) queue for each other's rows
// instead of deadlocking; each call runs through a store (a connection pool) of its own, as separate processes
// would. The server's own deadlock counter for the database must stay at zero: a deadlock is re-run and
// succeeds, so only the counter (and a second of lost time each) shows it. And 50 senders to 5 shared
// recipients at once deliver every message once, with each recipient's sequence numbers 1..n.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { deadlocksDetected, raceRounds } from "../helpers/pg-deadlocks.ts";
import { storeNames } from "../helpers/stores.ts";

const onPostgres = storeNames.includes("postgres");
const AGENTS = ["a", "b", "c", "d"];
const ROUNDS = 15;

describe.skipIf(!onPostgres)("one lock order for agents' rows [postgres]", () => {
  let mesh: MeshAgents;
  /** A call through a store (a connection pool) of its own, on the mesh's clock. */
  const depsOf = (store: Store): Deps => ({ ...mesh.deps(), store });

  beforeAll(async () => {
    mesh = await openMeshAgents("postgres");
    for (const agentId of AGENTS) await mesh.join(agentId, { ttlSeconds: 86_400, caps: [`cap-${agentId}`] });
  });
  afterAll(async () => mesh?.close());

  const seqsByRecipient = async (): Promise<Map<string, number[]>> => {
    const rows = await mesh.target.sql("SELECT recipient, seq FROM deliveries ORDER BY recipient, seq");
    const byRecipient = new Map<string, number[]>();
    for (const r of rows) byRecipient.set(String(r.recipient), [...(byRecipient.get(String(r.recipient)) ?? []), Number(r.seq)]);
    return byRecipient;
  };

  test("crossed sends, broadcasts and task posts at once: none fails and the server detects no deadlock", async () => {
    const send = (store: Store, from: string, to: string[] | "broadcast") =>
      sendMessage(depsOf(store), {
        from,
        token: mesh.token(from),
        recipients: to === "broadcast" ? { kind: "broadcast" } : { kind: "to", agentIds: to },
        body: `from ${from}`,
      });
    const post = (store: Store, from: string, cap: string) =>
      postTask(depsOf(store), {
        agentId: from,
        token: mesh.token(from),
        title: `for ${cap}`,
        body: "b",
        requireCaps: [cap],
        priority: "normal",
      });
    const pairs = AGENTS.flatMap((from) => AGENTS.filter((to) => to !== from).map((to) => [from, to] as const));
    const calls = [
      ...pairs.map(
        ([from, to]) =>
          (store: Store) =>
            send(store, from, [to]),
      ),
      (store: Store) => send(store, "a", ["b", "c", "d"]),
      (store: Store) => send(store, "d", ["c", "b", "a"]),
      (store: Store) => send(store, "b", "broadcast"),
      (store: Store) => send(store, "c", "broadcast"),
      (store: Store) => post(store, "a", "cap-b"),
      (store: Store) => post(store, "b", "cap-a"),
    ];
    const failures = await raceRounds(mesh.target, calls, ROUNDS, mesh.clock);
    let deadlocks: number | undefined;
    await mesh.reopen(async () => {
      deadlocks = await deadlocksDetected(mesh.target);
    });
    expect(failures).toEqual([]);
    expect(deadlocks).toBe(0);
    for (const [recipient, seqs] of await seqsByRecipient()) {
      expect(seqs, recipient).toEqual(seqs.map((_, i) => i + 1));
    }
  });

  test("50 senders to 5 shared recipients at once: every message delivered once, each inbox numbered 1..n", async () => {
    const recipients = Array.from({ length: 5 }, (_, i) => `shared-${i}`);
    const senders = Array.from({ length: 50 }, (_, i) => `sender-${i}`);
    for (const agentId of [...recipients, ...senders]) await mesh.join(agentId, { ttlSeconds: 86_400 });
    const stores = await Promise.all(senders.map(() => mesh.target.open()));
    const sendsEach = 6;
    const results = await Promise.allSettled(
      senders.map(async (from, i) => {
        for (let k = 0; k < sendsEach; k++) {
          mesh.clock.advance(100);
          await sendMessage(depsOf(stores[i] as Store), {
            from,
            token: mesh.token(from),
            recipients: { kind: "to", agentIds: [recipients[(i + k) % recipients.length] as string] },
            body: `${from} #${k}`,
          });
        }
      }),
    );
    await Promise.all(stores.map((s) => s.close()));
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const bodies = await mesh.target.sql(
      "SELECT m.body FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.recipient LIKE 'shared-%'",
    );
    expect(bodies).toHaveLength(senders.length * sendsEach);
    expect(new Set(bodies.map((b) => b.body)).size).toBe(senders.length * sendsEach);
    const seqs = await seqsByRecipient();
    for (const recipient of recipients) {
      const got = seqs.get(recipient) ?? [];
      expect(got, recipient).toEqual(got.map((_, i) => i + 1));
    }
  });
});
