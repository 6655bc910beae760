// One lock order for agents' rows on PostgreSQL: agents messaging each other at the same moment (A to B while B
// sends to A, broadcasts, several recipients at once, tasks posted to each other) queue for each other's rows
// instead of deadlocking; each call runs through a store (a connection pool) of its own, as separate processes
// would. The server's own deadlock counter for the database must stay at zero: a deadlock is re-run and
// succeeds, so only the counter (and a second of lost time each) shows it. And 50 senders to 5 shared
// recipients at once deliver every message once, with each recipient's sequence numbers 1..n.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { deadlocksDetected, raceRounds } from "../helpers/pg-deadlocks.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const onPostgres = storeNames.includes("postgres");
const AGENTS = ["a", "b", "c", "d"];
const ROUNDS = 15;

describe.skipIf(!onPostgres)("one lock order for agents' rows [postgres]", () => {
  let target: StoreTarget;
  let setup: Store;
  const clock = { now: Date.UTC(2026, 10, 30, 12) };
  const tokens = new Map<string, string>();
  const depsOf = (store: Store): Deps => ({ store, now: () => clock.now, host: "test-host", newId });

  beforeAll(async () => {
    target = await createStoreTarget("postgres");
    setup = await target.open();
    for (const agentId of AGENTS) {
      const r = await checkIn(depsOf(setup), { agentId, token: undefined, ttlSeconds: 86_400, caps: [`cap-${agentId}`] });
      tokens.set(agentId, r.agent_token as string);
    }
  });
  afterAll(async () => {
    await setup?.close();
    await target?.dispose();
  });

  const seqsByRecipient = async (): Promise<Map<string, number[]>> => {
    const rows = await target.sql("SELECT recipient, seq FROM deliveries ORDER BY recipient, seq");
    const byRecipient = new Map<string, number[]>();
    for (const r of rows) byRecipient.set(String(r.recipient), [...(byRecipient.get(String(r.recipient)) ?? []), Number(r.seq)]);
    return byRecipient;
  };

  test("crossed sends, broadcasts and task posts at once: none fails and the server detects no deadlock", async () => {
    const send = (store: Store, from: string, to: string[] | "broadcast") =>
      sendMessage(depsOf(store), {
        from,
        token: tokens.get(from),
        recipients: to === "broadcast" ? { kind: "broadcast" } : { kind: "to", agentIds: to },
        body: `from ${from}`,
      });
    const post = (store: Store, from: string, cap: string) =>
      postTask(depsOf(store), {
        agentId: from,
        token: tokens.get(from),
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
    const failures = await raceRounds(target, calls, ROUNDS, clock);
    await setup.close();
    expect(failures).toEqual([]);
    expect(await deadlocksDetected(target)).toBe(0);
    for (const [recipient, seqs] of await seqsByRecipient()) {
      expect(seqs, recipient).toEqual(seqs.map((_, i) => i + 1));
    }
    setup = await target.open();
  });

  test("50 senders to 5 shared recipients at once: every message delivered once, each inbox numbered 1..n", async () => {
    const recipients = Array.from({ length: 5 }, (_, i) => `shared-${i}`);
    const senders = Array.from({ length: 50 }, (_, i) => `sender-${i}`);
    for (const agentId of [...recipients, ...senders]) {
      const r = await checkIn(depsOf(setup), { agentId, token: undefined, ttlSeconds: 86_400 });
      tokens.set(agentId, r.agent_token as string);
    }
    const stores = await Promise.all(senders.map(() => target.open()));
    const sendsEach = 6;
    const results = await Promise.allSettled(
      senders.map(async (from, i) => {
        for (let k = 0; k < sendsEach; k++) {
          clock.now += 100;
          await sendMessage(depsOf(stores[i] as Store), {
            from,
            token: tokens.get(from),
            recipients: { kind: "to", agentIds: [recipients[(i + k) % recipients.length] as string] },
            body: `${from} #${k}`,
          });
        }
      }),
    );
    await Promise.all(stores.map((s) => s.close()));
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const bodies = await target.sql(
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
