// The identity and task repositories, run against every store adapter: the compare-and-swaps and the shared rate
// counters behave the same on SQLite and PostgreSQL, also across two connections at once.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { registerAgent } from "../../app/agent_computer/src/domain/agents/register.ts";
import type { Store, TaskRecord } from "../../app/agent_computer/src/store/port.ts";
import { meshClock } from "../helpers/mesh.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const task = (id: string, over: Partial<TaskRecord> = {}): TaskRecord => ({
  id,
  title: id,
  body: "b",
  requiredCaps: ["ts"],
  priority: "normal",
  state: "queued",
  poster: "p",
  assignee: null,
  result: null,
  reason: null,
  createdAt: 1000,
  updatedAt: 1000,
  version: 1,
  ...over,
});

// Two connections racing inside one process only make sense on PostgreSQL: bun:sqlite busy-waits synchronously, so a
// second SQLite connection of the same process would block the event loop the first one needs. The races between
// separate processes in test/e2e (identity-force-race, agent-task, identity-rate-limit) cover SQLite.
const RACES_IN_PROCESS = "postgres";

describe.each(storeNames)("identity contract [%s]", (storeName) => {
  let target: StoreTarget;
  let store: Store;
  let second: Store;
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    store = await target.open();
    second = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await second?.close();
    await target?.dispose();
  });

  test("rate slots count within a window, restart in the next and drop older windows", async () => {
    const take = (windowStart: number) => store.write((tx) => tx.identity.takeRateSlot("b", windowStart));
    expect([await take(60_000), await take(60_000), await take(60_000)]).toEqual([1, 2, 3]);
    expect(await take(120_000)).toBe(1);
    expect(await target.sql("SELECT window_start FROM rate_buckets WHERE bucket = 'b'")).toHaveLength(1);
  });

  test.skipIf(storeName !== RACES_IN_PROCESS)("rate slots taken concurrently through two connections lose no count", async () => {
    const take = (s: Store) => s.write((tx) => tx.identity.takeRateSlot("hot", 0));
    const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => take(i % 2 ? store : second)));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  test("a rolled-back transaction leaves its rate slot uncounted", async () => {
    await expect(
      store.write(async (tx) => {
        await tx.identity.takeRateSlot("rolled", 0);
        throw new Error("rejected");
      }),
    ).rejects.toThrow("rejected");
    expect(await store.write((tx) => tx.identity.takeRateSlot("rolled", 0))).toBe(1);
  });

  test("ending a session is a compare-and-swap: only the open session named, once", async () => {
    const clock = meshClock(store);
    const r = await registerAgent(clock.deps(), { agentId: "cas", role: "r", capabilities: [], token: undefined });
    const id = r.agent.session_id as string;
    const end = (s: Store) => s.write((tx) => tx.identity.endOpenSession("cas", id, clock.now));
    const results =
      storeName === RACES_IN_PROCESS ? await Promise.all([end(store), end(second)]) : [await end(store), await end(store)];
    expect(results.sort()).toEqual([false, true]);
    expect(await store.write((tx) => tx.identity.endOpenSession("cas", "ses_other", clock.now))).toBe(false);
  });

  test("credentials swap only from the hash read", async () => {
    const next = { tokenHash: "new", authState: "revoked" as const, recoveryHash: null };
    const [row] = await target.sql("SELECT token_hash FROM agents WHERE name = 'cas'");
    expect(await store.write((tx) => tx.identity.swapCredentials("cas", "not-it", next, 1))).toBe(false);
    expect(await store.write((tx) => tx.identity.swapCredentials("cas", row?.token_hash as string, next, 1))).toBe(true);
    expect((await store.read((tx) => tx.identity.getAgent("cas")))?.authState).toBe("revoked");
  });

  test("task changes are a compare-and-swap on the version; the queue is most urgent first", async () => {
    await store.write(async (tx) => {
      await tx.tasks.insert(task("task_low", { priority: "low", createdAt: 1 }));
      await tx.tasks.insert(task("task_urgent", { priority: "urgent", createdAt: 3 }));
      await tx.tasks.insert(task("task_high", { priority: "high", createdAt: 2 }));
    });
    expect((await store.read((tx) => tx.tasks.queued(10))).map((t) => t.id)).toEqual(["task_urgent", "task_high", "task_low"]);
    const change = { state: "assigned" as const, assignee: "w", result: null, reason: null, now: 2000 };
    const racer = storeName === RACES_IN_PROCESS ? second : store;
    const both = await Promise.all([
      store.write((tx) => tx.tasks.change("task_low", 1, change)),
      racer.write((tx) => tx.tasks.change("task_low", 1, { ...change, assignee: "v" })),
    ]);
    expect(both.filter((t) => t !== undefined)).toHaveLength(1);
    const stored = await store.read((tx) => tx.tasks.get("task_low"));
    expect(stored?.version).toBe(2);
    expect((await store.read((tx) => tx.tasks.openLoad())).get(stored?.assignee as string)).toBe(1);
    expect((await store.read((tx) => tx.tasks.list({ party: stored?.assignee as string, limit: 10 }))).map((t) => t.id)).toEqual([
      "task_low",
    ]);
    expect((await store.read((tx) => tx.tasks.list({ states: ["queued"], limit: 10 }))).map((t) => t.id)).toEqual([
      "task_urgent",
      "task_high",
    ]);
  });
});
