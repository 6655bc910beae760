// What retention must keep however old it is, on every store: a thread still in use (its older messages, and the
// message a reply started a thread from), and a message whose idempotency key a retry may still use, even when the
// pruning host's clock runs ahead of the sender's. And each batch starts from an index on messages' age, not a scan.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { prune } from "../../app/agent_computer/src/domain/admin/retention-prune.ts";
import { ackMessages } from "../../app/agent_computer/src/domain/mesh/ack.ts";
import { type SendInput, sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { PRUNABLE_BATCH } from "../../app/agent_computer/src/store/sql/admin.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const DAY = 86_400_000;
const MINUTE = 60_000;

describe.each(storeNames)("prune keeps what is still in use [%s]", (storeName) => {
  let mesh: MeshAgents;

  const send = async (extra: Partial<SendInput> = {}) =>
    sendMessage(mesh.deps(), {
      from: "sender",
      token: mesh.token("sender"),
      recipients: { kind: "to", agentIds: ["reader"] },
      body: "hello",
      ...extra,
    });
  const ack = (id: string) => ackMessages(mesh.deps(), { agentId: "reader", token: mesh.token("reader"), messageIds: [id] });
  const exists = async (id: string) => (await mesh.count(`SELECT COUNT(*) AS n FROM messages WHERE id = '${id}'`)) === 1;

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    await mesh.join("sender");
    await mesh.join("reader");
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("a thread with a message inside the retention keeps its old messages; a finished thread goes", async () => {
    const live = await send({ threadId: "pr-1", body: "first of a live thread" });
    const root = await send({ body: "answered much later" });
    const done = await send({ threadId: "pr-0", body: "a thread that ended" });
    const loose = await send({ body: "no thread" });
    for (const m of [live, root, done, loose]) await ack(m.id);
    mesh.clock.advance(40 * DAY);
    await mesh.join("sender");
    await mesh.join("reader");
    await send({ threadId: "pr-1", body: "the thread goes on" });
    const reply = await sendMessage(mesh.deps(), {
      from: "reader",
      token: mesh.token("reader"),
      recipients: { kind: "reply" },
      replyTo: root.id,
      body: "a late answer",
    });
    expect(reply.thread_id).toBe(root.id);
    await prune(mesh.deps(), 30);
    expect(await exists(live.id)).toBe(true);
    expect(await exists(root.id)).toBe(true);
    expect(await exists(done.id)).toBe(false);
    expect(await exists(loose.id)).toBe(false);
  });

  test("a keyed message outlives a pruning clock that runs ahead: the sender's retry is still a replay", async () => {
    const first = await send({ idempotencyKey: "deploy-7", body: "deploy 7 is out" });
    await ack(first.id);
    mesh.clock.advance(DAY - 5 * MINUTE);
    await mesh.join("sender");
    await mesh.join("reader");
    // Another host, ten minutes ahead, prunes with the shortest retention.
    const ahead = { ...mesh.deps(), now: () => mesh.clock.now + 10 * MINUTE };
    await prune(ahead, 1);
    expect(await exists(first.id)).toBe(true);
    const retry = await send({ idempotencyKey: "deploy-7", body: "deploy 7 is out" });
    expect(retry).toMatchObject({ id: first.id, replayed: true });
    // Past the window and the margin it goes like any other message.
    mesh.clock.advance(DAY + 2 * 3_600_000);
    await prune(mesh.deps(), 1);
    expect(await exists(first.id)).toBe(false);
  });

  test("a batch reads messages from the index on their age, without a sort of the whole table", async () => {
    await mesh.target.sql(
      storeName === "sqlite"
        ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO messages (id, sender, kind, body, created_at) SELECT 'msg_bulk_' || i, 'sender', 'message', 'b', i FROM n`
        : `INSERT INTO messages (id, sender, kind, body, created_at)
            SELECT 'msg_bulk_' || i, 'sender', 'message', 'b', i FROM generate_series(1, 20000) i`,
    );
    if (storeName === "sqlite") {
      const plan = (await mesh.target.sql(`EXPLAIN QUERY PLAN ${PRUNABLE_BATCH}`, [1, 1, 500, -1, ""])).map((r) =>
        String(r.detail),
      );
      expect(plan.join("\n")).toMatch(/SEARCH m USING (COVERING )?INDEX messages_by_age/);
      expect(plan.join("\n")).not.toMatch(/TEMP B-TREE/);
    } else {
      await mesh.target.sql("ANALYZE messages");
      const plan = (await mesh.target.sql(`EXPLAIN ${PRUNABLE_BATCH}`, [1_000, 1_000, 500, -1, ""])).map((r) =>
        String(r["QUERY PLAN"]),
      );
      expect(plan.join("\n")).toMatch(/(Index|Index Only|Bitmap Index) Scan (using|on) messages_by_age/);
      expect(plan.join("\n")).not.toMatch(/Seq Scan on messages m/);
    }
  });
});
