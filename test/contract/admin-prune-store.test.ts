// Retention against every store: agent-computer-admin prune and the worker's hourly pass both run domain/admin
// prune. Past the cut-off it deletes acknowledged and expired mail (with deliveries and, on SQLite, the word index),
// ended runs' output tails (runs kept) and ended webhook events; never a message with a pending delivery, a queued
// or running run, a pending webhook event, or anything newer than the cut-off. The preview counts exactly what goes.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { previewPrune, prune, retentionDaysFromEnv } from "../../app/agent_computer/src/domain/admin/retention-prune.ts";
import { ackMessages } from "../../app/agent_computer/src/domain/mesh/ack.ts";
import { searchMessages } from "../../app/agent_computer/src/domain/mesh/search.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { storeRetentionService } from "../../app/agent_computer/src/worker/store-retention.ts";
import type { WorkerContext } from "../../app/agent_computer/src/worker/worker-context.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const DAY = 86_400_000;

describe.each(storeNames)("prune past the retention [%s]", (storeName) => {
  let mesh: MeshAgents;
  const ids: Record<string, string> = {};
  let old: number;

  const send = async (to: string, body: string): Promise<string> =>
    (
      await sendMessage(mesh.deps(), {
        from: "sender",
        token: mesh.token("sender"),
        recipients: { kind: "to", agentIds: [to] },
        body,
      })
    ).id;

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    old = mesh.clock.now;
    await mesh.join("sender");
    await mesh.join("reader");
    await mesh.register("absent");
    ids.acked = await send("reader", "zebra acknowledged long ago");
    ids.unreached = await send("absent", "walrus never delivered");
    await ackMessages(mesh.deps(), { agentId: "reader", token: mesh.token("reader"), messageIds: [ids.acked as string] });
    // Runs and webhook events of that time, as the worker leaves them: ended, running, queued, pending.
    await mesh.target.sql(
      "INSERT INTO automation_jobs (id, owner, label, dir, timeout_seconds, created_at) VALUES ('job_1', 'sender', 'l', '/x', 60, $1)",
      [old],
    );
    const run = (id: string, state: string, finished: number | null) =>
      mesh.target.sql(
        `INSERT INTO automation_runs (id, job_id, owner, trigger_kind, event, state, stdout_tail, stderr_tail, created_at, finished_at)
          VALUES ($1, 'job_1', 'sender', 'manual', '{}', $2, 'out', 'err', $3, $4)`,
        [id, state, old, finished],
      );
    await run("run_ended", "succeeded", old + 1000);
    await run("run_running", "running", null);
    await run("run_queued", "queued", null);
    await mesh.target.sql(
      `INSERT INTO webhook_endpoints (id, owner, url, events, secret, allow_private, state, failed_streak, created_at, updated_at)
        VALUES ('ep_1', 'sender', 'https://example.com/h', ',message,', 's', 0, 'active', 0, $1, $1)`,
      [old],
    );
    const event = (id: string, state: string, finished: number | null) =>
      mesh.target.sql(
        `INSERT INTO webhook_events (id, endpoint_id, type, payload, state, attempts, next_attempt_at, created_at, finished_at)
          VALUES ($1, 'ep_1', 'message.received', '{}', $2, 1, $3, $3, $4)`,
        [id, state, old, finished],
      );
    await event("ev_delivered", "delivered", old + 1000);
    await event("ev_pending", "pending", null);
    // Forty days on: new mail, a new ended run and a new delivered event, all inside a 30-day retention.
    mesh.clock.advance(40 * DAY);
    await mesh.join("sender");
    await mesh.join("reader");
    ids.recent = await send("reader", "zebra acknowledged lately");
    // Unread mail waiting in a live session, dated back to the old time (a session with a long ttl).
    ids.pending = await send("reader", "yak still unread");
    await mesh.target.sql("UPDATE messages SET created_at = $1 WHERE id = $2", [old, ids.pending]);
    await ackMessages(mesh.deps(), { agentId: "reader", token: mesh.token("reader"), messageIds: [ids.recent as string] });
    await mesh.target.sql(
      `INSERT INTO automation_runs (id, job_id, owner, trigger_kind, event, state, stdout_tail, stderr_tail, created_at, finished_at)
        VALUES ('run_recent', 'job_1', 'sender', 'manual', '{}', 'failed', 'out', 'err', $1, $1)`,
      [mesh.clock.now - DAY],
    );
    await event("ev_recent", "delivered", mesh.clock.now - DAY);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  let before: unknown[];
  test("the preview counts what would go and deletes nothing", async () => {
    // Every message of the store: the four sent here and the bounce the absent agent's expiry sent the sender.
    before = (await mesh.target.sql("SELECT id FROM messages")).map((r) => r.id);
    expect(before).toEqual(expect.arrayContaining([ids.acked, ids.pending, ids.unreached, ids.recent]));
    expect(await previewPrune(mesh.deps(), 30)).toEqual({ messages: 2, runTails: 1, webhookEvents: 1 });
    expect(await mesh.count("SELECT COUNT(*) AS n FROM messages")).toBe(before.length);
    // A longer retention reaches nothing.
    expect(await previewPrune(mesh.deps(), 60)).toEqual({ messages: 0, runTails: 0, webhookEvents: 0 });
  });

  test("prune removes exactly that, in small batches, and keeps everything anyone waits on", async () => {
    const outcome = await prune(mesh.deps(), 30, { batch: 1 });
    expect(outcome).toEqual({ pruned: { messages: 2, runTails: 1, webhookEvents: 1 }, more: false });
    const messages = (await mesh.target.sql("SELECT id FROM messages ORDER BY id")).map((r) => r.id);
    expect(messages.sort()).toEqual(before.filter((id) => id !== ids.acked && id !== ids.unreached).sort());
    expect(
      await mesh.count(`SELECT COUNT(*) AS n FROM deliveries WHERE message_id IN ('${ids.acked}', '${ids.unreached}')`),
    ).toBe(0);
    expect(
      await mesh.count(`SELECT COUNT(*) AS n FROM deliveries WHERE message_id = '${ids.pending}' AND state = 'pending'`),
    ).toBe(1);
    const runs = await mesh.target.sql("SELECT id, state, stdout_tail, stderr_tail FROM automation_runs ORDER BY id");
    expect(runs.map((r) => [r.id, r.stdout_tail, r.stderr_tail])).toEqual([
      ["run_ended", null, null],
      ["run_queued", "out", "err"],
      ["run_recent", "out", "err"],
      ["run_running", "out", "err"],
    ]);
    const events = (await mesh.target.sql("SELECT id FROM webhook_events WHERE id LIKE 'ev_%' ORDER BY id")).map((r) => r.id);
    expect(events).toEqual(["ev_pending", "ev_recent"]);
    expect(await previewPrune(mesh.deps(), 30)).toEqual({ messages: 0, runTails: 0, webhookEvents: 0 });
  });

  test("search no longer finds a pruned message and still finds the rest", async () => {
    const found = await searchMessages(mesh.deps(), {
      agentId: "reader",
      token: mesh.token("reader"),
      query: "zebra",
      limit: 10,
    });
    expect(found.messages.map((m) => m.id)).toEqual([ids.recent]);
    if (storeName === "sqlite") {
      const kept = before.length - 2;
      expect(await mesh.count("SELECT COUNT(*) AS n FROM message_search_rows")).toBe(kept);
      expect(await mesh.count("SELECT COUNT(*) AS n FROM message_search")).toBe(kept);
    }
  });

  test("a message with a pending delivery outlives any retention", async () => {
    mesh.clock.advance(400 * DAY);
    expect((await prune(mesh.deps(), 1)).pruned.messages).toBe(before.length - 3);
    expect((await mesh.target.sql("SELECT id FROM messages")).map((r) => r.id)).toEqual([ids.pending]);
  });
  test("the worker prunes by itself past AGENT_COMPUTER_RETENTION_DAYS, and not at all with 0", async () => {
    const logged: string[] = [];
    const worker = (days: string) =>
      storeRetentionService({
        deps: mesh.deps(),
        env: { AGENT_COMPUTER_RETENTION_DAYS: days },
        options: { pollMs: 10 },
        log: { child: () => ({ log: (_level: string, message: string) => logged.push(message) }) },
      } as unknown as WorkerContext);
    await mesh.target.sql(
      "INSERT INTO messages (id, sender, kind, body, created_at) VALUES ('msg_aged', 'sender', 'message', 'aged', $1)",
      [mesh.clock.now - 2 * DAY],
    );
    await mesh.target.sql(
      "INSERT INTO deliveries (message_id, recipient, seq, state, acked_at) VALUES ('msg_aged', 'reader', 999999, 'acked', $1)",
      [mesh.clock.now - 2 * DAY],
    );
    await worker("0").drainOnce?.();
    expect(await mesh.count("SELECT COUNT(*) AS n FROM messages WHERE id = 'msg_aged'")).toBe(1);
    await worker("3").drainOnce?.();
    expect(await mesh.count("SELECT COUNT(*) AS n FROM messages WHERE id = 'msg_aged'")).toBe(1);
    await worker("1").drainOnce?.();
    expect(await mesh.count("SELECT COUNT(*) AS n FROM messages WHERE id = 'msg_aged'")).toBe(0);
    expect(logged).toEqual(["pruned past the retention"]);
    // Ended webhook events are the webhook retention's (--webhook-retention-days): the store's leaves them.
    await mesh.target.sql(
      `INSERT INTO webhook_events (id, endpoint_id, type, payload, state, attempts, next_attempt_at, created_at, finished_at)
        VALUES ('ev_aged', 'ep_1', 'message.received', '{}', 'delivered', 1, $1, $1, $1)`,
      [mesh.clock.now - 2 * DAY],
    );
    await worker("1").drainOnce?.();
    expect(await mesh.count("SELECT COUNT(*) AS n FROM webhook_events WHERE id = 'ev_aged'")).toBe(1);
  });
});

test("the worker's retention: 30 days by default, 0 turns it off, anything else is refused naming the variable", () => {
  expect(retentionDaysFromEnv({})).toBe(30);
  expect(retentionDaysFromEnv({ AGENT_COMPUTER_RETENTION_DAYS: "7" })).toBe(7);
  expect(retentionDaysFromEnv({ AGENT_COMPUTER_RETENTION_DAYS: "0" })).toBe(0);
  for (const bad of ["-1", "1.5", "week", "99999999"]) {
    expect(() => retentionDaysFromEnv({ AGENT_COMPUTER_RETENTION_DAYS: bad })).toThrow(/AGENT_COMPUTER_RETENTION_DAYS/);
  }
});
