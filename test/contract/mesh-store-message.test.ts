// The store's side of a send (MeshRepo.storeMessage and Store.write's `send` option) on every store: the message,
// the sender's presence and one delivery per recipient, answered in the order asked, with each recipient's message
// endpoints; and the reach rule's answer the same whether PostgreSQL read it ahead or not.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { NewMessage } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("a send's writes in the %s store", (storeName) => {
  let mesh: MeshAgents;
  let n = 0;
  const message = (): NewMessage => ({
    id: `msg_store_message_${++n}`,
    sender: "sender",
    kind: "message",
    body: `body ${n}`,
    threadId: null,
    idempotencyKey: null,
    createdAt: mesh.clock.now,
  });
  const presenceOf = async (agentId: string) =>
    (
      await mesh.target.sql(
        "SELECT a.last_seen_at, s.last_activity_at FROM agents a JOIN sessions s ON s.agent_name = a.name AND s.ended_at IS NULL WHERE a.name = $1",
        [agentId],
      )
    )[0];

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["sender", "alice", "bob", "shy"]) await mesh.join(agent);
    await mesh.store.write(async (tx) => {
      await tx.webhooks.insertEndpoint({
        id: "whk_bob",
        owner: "bob",
        url: "https://hooks.example.com/bob",
        events: ["message"],
        secret: "whsec_test",
        previousSecret: null,
        previousSecretUntil: null,
        allowPrivate: false,
        privateHost: null,
        state: "active",
        disabledReason: null,
        failedStreak: 0,
        createdAt: mesh.clock.now,
        updatedAt: mesh.clock.now,
      });
      await tx.mesh.setContactPolicy("shy", "closed", mesh.clock.now);
    });
  });
  afterAll(() => mesh.close());

  test("several recipients and presence owed: each answered in order, the unknown name with nothing, presence written", async () => {
    mesh.clock.advance(5000);
    const m = message();
    const presence = { agentId: "sender", touch: true, extend: true };
    const stored = await mesh.store.write((tx) =>
      tx.mesh.storeMessage({ message: m, recipients: ["bob", "nobody", "alice"], presence, now: mesh.clock.now }),
    );
    expect(stored.map((s) => s.slot?.holder.agentId)).toEqual(["bob", undefined, "alice"]);
    expect(stored.map((s) => s.subscribers)).toEqual([["whk_bob"], [], []]);
    expect(stored.every((s) => s.slot === undefined || s.slot.sessionId !== undefined)).toBe(true);
    const rows = await mesh.target.sql("SELECT recipient, seq, state FROM deliveries WHERE message_id = $1 ORDER BY recipient", [
      m.id,
    ]);
    expect(rows.map((r) => [r.recipient, Number(r.seq), r.state])).toEqual([
      ["alice", stored[2]?.slot?.seq, "pending"],
      ["bob", stored[0]?.slot?.seq, "pending"],
    ]);
    const after = await presenceOf("sender");
    expect(Number(after?.last_seen_at)).toBe(mesh.clock.now);
    expect(Number(after?.last_activity_at)).toBe(mesh.clock.now);
  });

  test("one recipient and presence fresh: the message and its delivery, the next sequence number, presence untouched", async () => {
    const before = await presenceOf("sender");
    const first = message();
    const second = message();
    const none = { agentId: "sender", touch: false, extend: false };
    const [a] = await mesh.store.write((tx) =>
      tx.mesh.storeMessage({ message: first, recipients: ["alice"], presence: none, now: mesh.clock.now }),
    );
    const [b] = await mesh.store.write((tx) =>
      tx.mesh.storeMessage({ message: second, recipients: ["alice"], presence: none, now: mesh.clock.now }),
    );
    expect(b?.slot?.seq).toBe((a?.slot?.seq ?? 0) + 1);
    expect(await mesh.count(`SELECT COUNT(*) AS n FROM messages WHERE id IN ('${first.id}', '${second.id}')`)).toBe(2);
    expect(await presenceOf("sender")).toEqual(before);
  });

  test("an empty recipient list stores the message alone (the caller throws to take it back)", async () => {
    const m = message();
    const presence = { agentId: "sender", touch: false, extend: false };
    expect(
      await mesh.store.write((tx) => tx.mesh.storeMessage({ message: m, recipients: [], presence, now: mesh.clock.now })),
    ).toEqual([]);
    expect(await mesh.count(`SELECT COUNT(*) AS n FROM deliveries WHERE message_id = '${m.id}'`)).toBe(0);
  });

  test("in a send's transaction the reach rule answers for the names asked, read ahead or not", async () => {
    const send = { sender: "sender", recipients: ["alice", "shy"] };
    const [ahead, other, again] = await mesh.store.write(
      async (tx) => {
        await tx.mesh.callerState("sender", mesh.clock.now);
        return [
          await tx.mesh.refusingRecipients("sender", ["alice", "shy"]),
          await tx.mesh.refusingRecipients("sender", ["bob", "shy"]),
          await tx.mesh.refusingRecipients("sender", ["alice", "shy"]),
        ];
      },
      { send },
    );
    expect(ahead).toEqual(["shy"]);
    expect(other).toEqual(["shy"]);
    expect(again).toEqual(["shy"]);
    // A policy changed inside the transaction after the read ahead is what the next question sees.
    const afterChange = await mesh.store.write(
      async (tx) => {
        await tx.mesh.callerState("sender", mesh.clock.now);
        await tx.mesh.setContactPolicy("alice", "closed", mesh.clock.now);
        return tx.mesh.refusingRecipients("sender", ["alice", "shy"]);
      },
      { send },
    );
    expect(afterChange.sort()).toEqual(["alice", "shy"]);
  });
});
