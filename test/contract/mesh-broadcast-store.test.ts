// Broadcasts on every store: they summarise by outcome, are narrowed by role, repo and capability, are bounded (a
// maximum selection, refused whole, and a per-sender broadcast rate), agree with direct sends recipient by recipient
// on who refuses the sender (one reach rule), and deliver in a fixed number of store calls whatever their size, all
// or nothing.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { rateLimitsFromEnv } from "../../app/agent_computer/src/domain/identity/rate-config.ts";
import { type ContactChange, manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { type RecipientSelector, sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import type { Store, StoreTx } from "../../app/agent_computer/src/store/port.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

type Limits = Record<string, string>;
type Filters = Omit<Extract<RecipientSelector, { kind: "broadcast" }>, "kind">;

/** A store whose transactions count every repository call by name (the store spy). */
const countingStore = (store: Store, calls: Map<string, number>): Store => {
  const spy = (tx: StoreTx): StoreTx =>
    Object.fromEntries(
      Object.entries(tx).map(([repo, methods]) => [
        repo,
        new Proxy(methods as object, {
          get(target, key, receiver) {
            const value = Reflect.get(target, key, receiver);
            if (typeof value !== "function") return value;
            return (...args: unknown[]) => {
              const name = `${repo}.${String(key)}`;
              calls.set(name, (calls.get(name) ?? 0) + 1);
              return value.apply(target, args);
            };
          },
        }),
      ]),
    ) as unknown as StoreTx;
  return { ...store, write: (fn, options) => store.write((tx) => fn(spy(tx)), options) };
};

describe.each(storeNames)("broadcasts [%s]", (storeName) => {
  let mesh: MeshAgents;
  const MINUTE = 60_000;
  const freshWindow = () => mesh.clock.advance(MINUTE - (mesh.clock.now % MINUTE));
  const deps = (limits?: Limits): Deps => ({ ...mesh.deps(), ...(limits ? { limits: rateLimitsFromEnv(limits) } : {}) });
  const broadcast = (from: string, filters: Filters = {}, limits?: Limits, d: Deps = deps(limits)) =>
    sendMessage(d, { from, token: mesh.token(from), recipients: { kind: "broadcast", ...filters }, body: "to all" });
  const send = (from: string, to: string[]) =>
    sendMessage(deps(), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: to }, body: "direct" });
  const contacts = (agentId: string, change: ContactChange) =>
    manageContacts(deps(), { agentId, token: mesh.token(agentId), change });
  const count = (sql: string) => mesh.count(sql);
  const fromSender = (sender: string) => count(`SELECT COUNT(*) AS n FROM messages WHERE sender = '${sender}'`);

  /** `n` agents named <prefix>-1 … checked in now with `role`, written in two statements, not n check-ins. */
  const seedCrowd = async (prefix: string, n: number, role: string) => {
    const now = mesh.clock.now;
    const numbers = `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})`;
    await mesh.target.sql(
      `${numbers} INSERT INTO agents (name, name_key, token_hash, created_at, updated_at, last_seen_at, holder_since)
       SELECT '${prefix}-' || i, '${prefix}-' || i, 'unused', ${now}, ${now}, ${now}, ${now} FROM k`,
    );
    await mesh.target.sql(
      `${numbers} INSERT INTO sessions (id, agent_name, host, role, caps, ttl_seconds, started_at, last_activity_at,
         expires_at, watermark_seq)
       SELECT 'ses_${prefix}_' || i, '${prefix}-' || i, 'seeded', '${role}', '[]', 86400, ${now}, ${now}, ${now + 86_400_000}, 0 FROM k`,
    );
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
  });
  afterAll(async () => mesh?.close());

  test("the result counts each outcome and names the first five of each, in name order", async () => {
    await mesh.join("caster", { role: "lead", ttlSeconds: 3600 });
    const names = Array.from({ length: 9 }, (_, i) => `sum-${i}`);
    for (const name of names) await mesh.join(name, { role: "summed", ttlSeconds: 3600 });
    for (const name of ["sum-1", "sum-4", "sum-6"]) await contacts(name, { kind: "policy", policy: "closed" });
    const r = await broadcast("caster", { role: "summed" });
    expect(r.summary).toEqual({
      live: { count: 6, first: ["sum-0", "sum-2", "sum-3", "sum-5", "sum-7"] },
      refused_by_policy: { count: 3, first: ["sum-1", "sum-4", "sum-6"] },
    });
    expect(r.recipients.map((x) => x.agent_id)).toEqual(names);
    expect(await count(`SELECT COUNT(*) AS n FROM deliveries WHERE message_id = '${r.id}'`)).toBe(6);
  });

  test("role, repo and capabilities narrow it; every filter given must hold", async () => {
    await mesh.join("sel-a", { role: "builder", repo: "web", caps: ["ts", "sql"], ttlSeconds: 3600 });
    await mesh.join("sel-b", { role: "builder", repo: "api", caps: ["go"], ttlSeconds: 3600 });
    await mesh.join("sel-c", { role: "reviewer", repo: "web", caps: ["ts"], ttlSeconds: 3600 });
    const who = async (filters: Filters) => (await broadcast("caster", filters)).recipients.map((x) => x.agent_id);
    expect(await who({ role: "builder" })).toEqual(["sel-a", "sel-b"]);
    expect(await who({ repo: "web" })).toEqual(["sel-a", "sel-c"]);
    expect(await who({ capabilities: ["ts"] })).toEqual(["sel-a", "sel-c"]);
    expect(await who({ capabilities: ["ts", "sql"] })).toEqual(["sel-a"]);
    expect(await who({ capabilities: ["sql"], role: "builder", repo: "web" })).toEqual(["sel-a"]);
    // A capability is matched whole, never as part of another.
    expect(await failure(broadcast("caster", { capabilities: ["s"] }))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(broadcast("caster", { capabilities: ["go"], repo: "web" }))).toMatchObject({ code: "NOT_FOUND" });
  });

  test("broadcast and direct send agree, recipient by recipient, on who refuses the sender", async () => {
    const policies: [string, ContactChange[]][] = [
      ["agree-open", []],
      ["agree-closed", [{ kind: "policy", policy: "closed" }]],
      [
        "agree-allows",
        [
          { kind: "policy", policy: "contacts-only" },
          { kind: "allow", contacts: ["Agree-Sender"] },
        ],
      ],
      [
        "agree-others",
        [
          { kind: "policy", policy: "contacts-only" },
          { kind: "allow", contacts: ["someone-else"] },
        ],
      ],
      ["agree-blocks", [{ kind: "block", contacts: ["Agree-Sender"] }]],
      // A block holds for look-alike names too: case and trailing . _ -.
      ["agree-blocks-lookalike", [{ kind: "block", contacts: ["agree-sender_"] }]],
      [
        "agree-allows-blocks",
        [
          { kind: "policy", policy: "contacts-only" },
          { kind: "block", contacts: ["AGREE-SENDER"] },
        ],
      ],
    ];
    await mesh.join("Agree-Sender", { ttlSeconds: 3600 });
    for (const [name, changes] of policies) {
      await mesh.join(name, { role: "agree", ttlSeconds: 3600 });
      for (const change of changes) await contacts(name, change);
    }
    const direct = new Map<string, string>();
    for (const [name] of policies) {
      const one = await failure(send("Agree-Sender", [name]));
      direct.set(name, one === undefined ? "live" : one.code === "REFUSED_BY_POLICY" ? "refused_by_policy" : String(one.code));
    }
    const all = await broadcast("Agree-Sender", { role: "agree" });
    expect(new Map(all.recipients.map((x) => [x.agent_id, x.outcome]))).toEqual(direct);
    expect([...direct.values()].filter((o) => o === "live")).toHaveLength(2);
  });

  test("a selection over the maximum is refused whole, naming the bound and the selectors; narrowed, it goes", async () => {
    for (const name of ["max-1", "max-2", "max-3"]) await mesh.join(name, { role: "capped", ttlSeconds: 3600 });
    const limits = { AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS: "2" };
    const before = await fromSender("caster");
    const refused = await failure(broadcast("caster", { role: "capped" }, limits));
    expect(refused).toMatchObject({ code: "INVALID_INPUT", details: { selected: 3, max: 2 } });
    expect(refused?.message).toContain("AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS");
    expect(refused?.message).toContain("--role, --repo or --capabilities");
    expect(await fromSender("caster")).toBe(before);
    await contacts("max-3", { kind: "policy", policy: "closed" });
    // Refusing agents are still selected: the bound is on the selection, not on who accepts.
    expect(await failure(broadcast("caster", { role: "capped" }, limits))).toMatchObject({ code: "INVALID_INPUT" });
    await mesh.join("max-2", { role: "other", ttlSeconds: 3600 });
    expect((await broadcast("caster", { role: "capped" }, limits)).summary).toEqual({
      live: { count: 1, first: ["max-1"] },
      refused_by_policy: { count: 1, first: ["max-3"] },
    });
  });

  test("a sender's broadcasts have their own rate: RATE_LIMITED with retry_after_s; direct sends go on", async () => {
    const limits = { AGENT_COMPUTER_RATE_BROADCAST_PER_NAME: "2/60" };
    freshWindow();
    await broadcast("caster", { role: "capped" }, limits);
    await broadcast("caster", { role: "capped" }, limits);
    const before = await fromSender("caster");
    const limited = await failure(broadcast("caster", { role: "capped" }, limits));
    expect(limited).toMatchObject({ code: "RATE_LIMITED", details: { scope: "name", limit: 2, window_s: 60 } });
    expect((limited as { details: { retry_after_s: number } }).details.retry_after_s).toBeGreaterThanOrEqual(1);
    expect(await fromSender("caster")).toBe(before);
    await sendMessage(deps(limits), {
      from: "caster",
      token: mesh.token("caster"),
      recipients: { kind: "to", agentIds: ["max-1"] },
      body: "x",
    });
    freshWindow();
    expect((await broadcast("caster", { role: "capped" }, limits)).replayed).toBe(false);
  });

  test("10,000 recipients take the same store calls as 3, one storeBroadcast; inbox numbers stay consecutive", async () => {
    await seedCrowd("few", 3, "few");
    await seedCrowd("crowd", 10_000, "crowd");
    const callsFor = async (role: string) => {
      const calls = new Map<string, number>();
      const result = await broadcast("caster", { role }, undefined, { ...deps(), store: countingStore(mesh.store, calls) });
      return { result, calls };
    };
    const few = await callsFor("few");
    const crowd = await callsFor("crowd");
    expect(crowd.result.summary.live?.count).toBe(10_000);
    expect(crowd.calls).toEqual(few.calls);
    expect(crowd.calls.get("mesh.storeBroadcast")).toBe(1);
    for (const perRecipient of ["mesh.deliver", "mesh.storeMessage", "mesh.refusingRecipients", "mesh.insertDelivery"]) {
      expect(crowd.calls.get(perRecipient)).toBeUndefined();
    }
    expect(await count(`SELECT COUNT(*) AS n FROM deliveries WHERE message_id = '${crowd.result.id}' AND seq = 1`)).toBe(10_000);
    // The next message to any of them takes the next number.
    expect((await send("caster", ["crowd-77"])).recipients[0]?.seq).toBe(2);
  });

  test("all or nothing: refused after the delivery statement, nothing of it stays and no inbox number moves", async () => {
    const seqs = () => count("SELECT SUM(last_seq) AS n FROM agents WHERE name LIKE 'crowd-%'");
    const before = { seqs: await seqs(), messages: await fromSender("caster") };
    // The delivery budget is checked after the deliveries are written; one over it rolls them all back.
    const refused = await failure(
      broadcast(
        "caster",
        { role: "crowd" },
        { AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "9999/60", AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS: "20000" },
      ),
    );
    expect(refused).toMatchObject({ code: "RATE_LIMITED", details: { count: 10_000, limit: 9999 } });
    expect(await seqs()).toBe(before.seqs);
    expect(await fromSender("caster")).toBe(before.messages);
  });
});
