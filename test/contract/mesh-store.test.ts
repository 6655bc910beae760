// The mesh contract, run against every store adapter: the same behaviour on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkIn, previewCheckIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import { ackMessages } from "../../app/agent_computer/src/domain/mesh/ack.ts";
import { listAgents } from "../../app/agent_computer/src/domain/mesh/directory.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { peekInbox } from "../../app/agent_computer/src/domain/mesh/peek.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { listSent } from "../../app/agent_computer/src/domain/mesh/sent.ts";
import { type MeshAgents, type MeshClock, openMeshAgents } from "../helpers/mesh.ts";
import { type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("mesh contract [%s]", (storeName) => {
  let mesh: MeshAgents;
  let target: StoreTarget;
  let clock: MeshClock;

  const join = (agentId: string, extra: { role?: string; repo?: string; ttlSeconds?: number } = {}) => mesh.join(agentId, extra);
  const send = (from: string, to: string[], body: string, idempotencyKey?: string) =>
    sendMessage(clock.deps(), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: to }, body, idempotencyKey });
  const inbox = (agentId: string, limit = 50) => readInbox(clock.deps(), { agentId, token: mesh.token(agentId), limit });

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    ({ target, clock } = mesh);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("a first check-in registers the name, returns the token once and stores only its hash", async () => {
    const first = await join("alice", { role: "builder" });
    expect(first.action).toBe("register_and_start_session");
    expect(first.agent_token).toMatch(/^act_[A-Za-z0-9_-]{43}$/);
    expect(first.ttl_seconds).toBe(3600);
    const again = await join("alice");
    expect(again.action).toBe("renew_session");
    expect(again.agent_token).toBeUndefined();
    expect(again.session_id).toBe(first.session_id);
    const rows = await target.sql("SELECT token_hash FROM agents WHERE name = $1", ["alice"]);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(first.agent_token);
  });

  test("a wrong token is refused with AUTH_FAILED and changes nothing", async () => {
    await expect(checkIn(clock.deps(), { agentId: "alice", token: "act_wrong" })).rejects.toMatchObject({ code: "AUTH_FAILED" });
    await expect(checkIn(clock.deps(), { agentId: "alice", token: undefined })).rejects.toMatchObject({ code: "AUTH_FAILED" });
  });

  test("ping roles default to a 900 s ttl; explicit ttl wins", async () => {
    expect((await join("pinger", { role: "ping" })).ttl_seconds).toBe(900);
    expect((await join("pinger", { ttlSeconds: 120 })).ttl_seconds).toBe(120);
  });

  test("the preview changes nothing", async () => {
    const before = await target.sql("SELECT COUNT(*) AS n FROM agents");
    const preview = await previewCheckIn(clock.deps(), { agentId: "nobody-yet", token: undefined, role: "builder" });
    expect(preview).toMatchObject({ preview: true, action: "register_and_start_session" });
    expect(await target.sql("SELECT COUNT(*) AS n FROM agents")).toEqual(before);
  });

  test("messages flow in sequence order and stay until acknowledged", async () => {
    await join("bob");
    const a = await send("alice", ["bob"], "one");
    const b = await send("alice", ["bob"], "two");
    expect(a.recipients).toEqual([{ agent_id: "bob", outcome: "live", seq: 1 }]);
    expect(b.recipients[0]?.seq).toBe(2);
    const read1 = await inbox("bob");
    const read2 = await inbox("bob");
    expect(read1.messages.map((m) => m.body)).toEqual(["one", "two"]);
    expect(read2.messages).toEqual(read1.messages);
    const ack = await ackMessages(clock.deps(), { agentId: "bob", token: mesh.token("bob"), upToSeq: 1 });
    expect(ack.acked).toEqual([a.id]);
    expect((await inbox("bob")).messages.map((m) => m.body)).toEqual(["two"]);
    const again = await ackMessages(clock.deps(), { agentId: "bob", token: mesh.token("bob"), messageIds: [a.id, b.id] });
    expect(again).toMatchObject({ acked: [b.id], already_closed: [a.id] });
  });

  test("acknowledging a foreign id rejects the whole call and acks nothing", async () => {
    const mine = await send("alice", ["bob"], "mine");
    const theirs = await send("bob", ["alice"], "theirs");
    await expect(
      ackMessages(clock.deps(), { agentId: "bob", token: mesh.token("bob"), messageIds: [mine.id, theirs.id] }),
    ).rejects.toMatchObject({ code: "MESSAGE_NOT_FOUND" });
    expect((await inbox("bob")).messages.map((m) => m.id)).toContain(mine.id);
  });

  test("the limit pages oldest first and says more is waiting", async () => {
    await send("alice", ["bob"], "page one");
    await send("alice", ["bob"], "page two");
    const page = await inbox("bob", 1);
    const all = await inbox("bob", 100);
    expect(page.count).toBe(1);
    expect(page.messages[0]).toEqual(all.messages[0]);
    expect(page.has_more).toBe(true);
  });

  test("a message sent before the recipient's check-in is never delivered, and the sender is told", async () => {
    await join("carol");
    clock.advance(3601_000);
    await join("alice");
    const early = await send("alice", ["carol"], "before your session");
    expect(early.recipients).toEqual([{ agent_id: "carol", outcome: "not_checked_in", seq: expect.any(Number) }]);
    const session = await join("carol");
    expect(session.action).toBe("start_session");
    expect((await inbox("carol")).messages).toEqual([]);
    const late = await send("alice", ["carol"], "after");
    expect(late.recipients[0]?.outcome).toBe("live");
    expect((await inbox("carol")).messages.map((m) => m.body)).toEqual(["after"]);
  });

  test("an expired session stops receiving; its unread mail expires and the sender gets one bounce", async () => {
    await join("dave", { ttlSeconds: 60 });
    await join("alice");
    const m1 = await send("alice", ["dave"], "are you there?");
    const m2 = await send("alice", ["dave"], "still there?");
    clock.advance(61_000);
    const after = await send("alice", ["dave"], "hello?");
    expect(after.recipients[0]?.outcome).toBe("not_checked_in");
    await expect(inbox("dave")).rejects.toMatchObject({ code: "NOT_CHECKED_IN" });
    const sent = await listSent(clock.deps(), { agentId: "alice", token: mesh.token("alice"), limit: 100 });
    const stateOf = (id: string) => sent.messages.find((m) => m.id === id)?.recipients[0]?.state;
    expect([stateOf(m1.id), stateOf(m2.id), stateOf(after.id)]).toEqual([
      "expired_undelivered",
      "expired_undelivered",
      "not_checked_in",
    ]);
    const bounces = (await inbox("alice", 100)).messages.filter((m) => m.kind === "bounce");
    expect(bounces).toHaveLength(1);
    expect(bounces[0]?.from).toBe("agent-computer");
    expect(bounces[0]?.body).toContain(m1.id);
    expect(bounces[0]?.body).toContain(m2.id);
  });

  test("calls that only renew presence write it at most once a second; an inbox read always renews", async () => {
    await join("erin", { ttlSeconds: 60 });
    await join("frank");
    const presence = async () => {
      const [row] = await target.sql(
        "SELECT a.last_seen_at, s.expires_at FROM agents a JOIN sessions s ON s.agent_name = a.name AND s.ended_at IS NULL WHERE a.name = $1",
        ["erin"],
      );
      return { lastSeenAt: Number(row?.last_seen_at), expiresAt: Number(row?.expires_at) };
    };
    const written = await presence();
    expect(written).toEqual({ lastSeenAt: clock.now, expiresAt: clock.now + 60_000 });
    clock.advance(999);
    await send("erin", ["frank"], "within the second");
    expect(await presence()).toEqual(written);
    clock.advance(1);
    await send("erin", ["frank"], "a second later");
    expect(await presence()).toEqual({ lastSeenAt: clock.now, expiresAt: clock.now + 60_000 });
    clock.advance(10);
    await inbox("erin");
    expect(await presence()).toEqual({ lastSeenAt: clock.now, expiresAt: clock.now + 60_000 });
  });

  test("a peek counts what waits (count, newest seq, oldest age) in one read transaction that writes nothing", async () => {
    await join("gina", { ttlSeconds: 60 });
    await join("alice");
    const peek = () => peekInbox(clock.deps(), { agentId: "gina", token: mesh.token("gina") });
    const empty = await peek();
    expect(empty).toMatchObject({ agent_id: "gina", count: 0, newest_seq: null, oldest_waiting_s: null });
    await send("alice", ["gina"], "first");
    clock.advance(5_000);
    const second = await send("alice", ["gina"], "second");
    clock.advance(2_500);
    const state = () =>
      target.sql(
        "SELECT a.last_seen_at, s.expires_at, s.last_activity_at FROM agents a JOIN sessions s ON s.agent_name = a.name WHERE a.name = $1",
        ["gina"],
      );
    const before = await state();
    expect(await peek()).toEqual({
      agent_id: "gina",
      session_id: empty.session_id,
      count: 2,
      newest_seq: second.recipients[0]?.seq,
      oldest_waiting_s: 7,
    });
    // No presence renewal, no message state: the same rows as before, and the inbox still holds both.
    expect(await state()).toEqual(before);
    expect(JSON.stringify(await peek())).not.toMatch(/first|second|alice/);
    await ackMessages(clock.deps(), { agentId: "gina", token: mesh.token("gina"), upToSeq: second.recipients[0]?.seq as number });
    expect(await peek()).toMatchObject({ count: 0, newest_seq: null });
    // The same credentials and live check-in rules as the inbox read; a peek does not keep a session alive.
    await expect(peekInbox(clock.deps(), { agentId: "gina", token: "act_wrong" })).rejects.toMatchObject({ code: "AUTH_FAILED" });
    await expect(peekInbox(clock.deps(), { agentId: "nobody", token: "act_x" })).rejects.toMatchObject({ code: "UNKNOWN_AGENT" });
    clock.advance(61_000);
    await expect(peek()).rejects.toMatchObject({ code: "NOT_CHECKED_IN" });
  });

  test("a caller whose own session ran out can still send; its session ends and is not renewed", async () => {
    await join("gina", { ttlSeconds: 60 });
    await join("frank");
    clock.advance(61_000);
    await join("frank");
    const sent = await send("gina", ["frank"], "my session ran out");
    expect(sent.recipients[0]?.outcome).toBe("live");
    const [session] = await target.sql("SELECT ended_at, expires_at FROM sessions WHERE agent_name = $1", ["gina"]);
    expect(Number(session?.ended_at)).toBe(Number(session?.expires_at));
    await expect(inbox("gina")).rejects.toMatchObject({ code: "NOT_CHECKED_IN" });
  });

  test("an idempotency key returns the original within 24 h and sends nothing new", async () => {
    await join("alice");
    await join("bob");
    const first = await send("alice", ["bob"], "deploy done", "k-1");
    const retry = await send("alice", ["bob"], "deploy done", "k-1");
    expect(retry).toMatchObject({ id: first.id, replayed: true });
    const count = await target.sql("SELECT COUNT(*) AS n FROM messages WHERE idempotency_key = $1", ["k-1"]);
    expect(Number(count[0]?.n)).toBe(1);
    clock.advance(24 * 3600_000 + 1000);
    await join("alice");
    await join("bob");
    const later = await send("alice", ["bob"], "deploy done", "k-1");
    expect(later.replayed).toBe(false);
    expect(later.id).not.toBe(first.id);
  });

  test("unknown recipients are rejected per recipient; all-unknown sends nothing", async () => {
    const mixed = await send("alice", ["bob", "ghost"], "hi");
    expect(mixed.recipients.map((r) => r.outcome)).toEqual(["live", "unknown_agent"]);
    const before = await target.sql("SELECT COUNT(*) AS n FROM messages");
    await expect(send("alice", ["ghost"], "hi")).rejects.toMatchObject({ code: "UNKNOWN_AGENT" });
    expect(await target.sql("SELECT COUNT(*) AS n FROM messages")).toEqual(before);
  });

  test("concurrent sends of one process, some refused, each land once with gapless sequence numbers", async () => {
    await join("alice");
    await join("tally");
    // On SQLite these share group-commit batches: a refused send rolls back its batch, which is replayed.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => {
        if (i % 6 === 1) return send("alice", ["nobody-here"], `unknown ${i}`);
        if (i % 6 === 2) {
          return sendMessage(clock.deps(), {
            from: "alice",
            token: "act_wrong",
            recipients: { kind: "to", agentIds: ["tally"] },
            body: `forged ${i}`,
          });
        }
        if (i % 6 === 3) return send("alice", ["tally"], "once only", "tally-dup");
        return send("alice", ["tally"], `body ${i}`);
      }),
    );
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code: string }).code] : []));
    expect(refused.sort()).toEqual([...Array(10).fill("AUTH_FAILED"), ...Array(10).fill("UNKNOWN_AGENT")]);
    const sent = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    expect(sent).toHaveLength(40);
    const keyed = outcomes.flatMap((o, i) => (i % 6 === 3 && o.status === "fulfilled" ? [o.value] : []));
    expect(keyed).toHaveLength(10);
    expect(new Set(keyed.map((r) => r.id)).size).toBe(1);
    expect(keyed.filter((r) => !r.replayed)).toHaveLength(1);
    // A refused send leaves nothing behind, not even the message row written before its recipient was found unknown.
    expect(await target.sql("SELECT id FROM messages WHERE body LIKE 'unknown %' OR body LIKE 'forged %'")).toEqual([]);
    const rows = await target.sql(
      "SELECT d.seq, m.body FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.recipient = $1 ORDER BY d.seq",
      ["tally"],
    );
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(rows.filter((r) => r.body === "once only")).toHaveLength(1);
    expect(new Set(rows.map((r) => r.body)).size).toBe(31);
    const seqOf = new Map(sent.map((r) => [r.id, r.recipients[0]?.seq]));
    expect([...seqOf.values()].sort((a, b) => Number(a) - Number(b))).toEqual(rows.map((r) => Number(r.seq)));
  });

  test("broadcast reaches live agents except the sender, filtered by role and repo", async () => {
    await join("rev-1", { role: "reviewer" });
    const all = await sendMessage(clock.deps(), {
      from: "alice",
      token: mesh.token("alice"),
      recipients: { kind: "broadcast", role: "reviewer" },
      body: "review please",
    });
    expect(all.recipients.map((r) => r.agent_id)).toEqual(["rev-1"]);
    await join("rev-2", { role: "reviewer", repo: "web" });
    const broadcast = (filters: { role?: string; repo?: string }) =>
      sendMessage(clock.deps(), {
        from: "alice",
        token: mesh.token("alice"),
        recipients: { kind: "broadcast", ...filters },
        body: "filtered",
      });
    expect((await broadcast({ repo: "web" })).recipients.map((r) => r.agent_id)).toEqual(["rev-2"]);
    expect((await broadcast({ role: "reviewer" })).recipients.map((r) => r.agent_id)).toEqual(["rev-1", "rev-2"]);
    await expect(broadcast({ role: "builder", repo: "web" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      sendMessage(clock.deps(), {
        from: "alice",
        token: mesh.token("alice"),
        recipients: { kind: "broadcast", role: "nobody" },
        body: "x",
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  test("the directory lists live agents with status age, and stale ones on request", async () => {
    await checkIn(clock.deps(), { agentId: "alice", token: mesh.token("alice"), status: "writing tests" });
    clock.advance(30_000);
    const live = await listAgents(clock.deps(), { includeStale: false, token: undefined });
    const alice = live.agents.find((a) => a.agent_id === "alice");
    expect(alice).toMatchObject({ alive: true, status: "writing tests", status_age_s: 30 });
    expect(live.agents.some((a) => a.agent_id === "dave")).toBe(false);
    const all = await listAgents(clock.deps(), { includeStale: true, token: undefined });
    expect(all.agents.find((a) => a.agent_id === "dave")).toMatchObject({ alive: false });
  });
});
