// Outbound webhooks against every store: events enter the outbox in the transaction of their cause (a send refused
// by policy enqueues nothing; kinds an endpoint did not ask for are not enqueued), claims hold a lease that a second
// worker cannot take until it lapses (and then the first worker's result is fenced), failures are retried on the
// backoff schedule, the last failure ends the event, and an endpoint that keeps failing is disabled with a notice
// in its owner's inbox; enable sends what was kept; events that ended longer ago than the retention period are
// pruned with their attempts, and pending ones never are.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { unregisterAgent } from "../../app/agent_computer/src/domain/agents/unregister.ts";
import { claimAttempts, finishAttempt } from "../../app/agent_computer/src/domain/automation/attempts.ts";
import { createJob } from "../../app/agent_computer/src/domain/automation/jobs.ts";
import { startManualRun } from "../../app/agent_computer/src/domain/automation/manual-run.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import {
  claimDeliveries,
  type DeliveryPolicy,
  deliveryDue,
  settleDelivery,
} from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import {
  addEndpoint,
  enableEndpoint,
  listDeliveries,
  listEndpoints,
  MAX_ENDPOINTS_PER_AGENT,
  ROTATION_OVERLAP_MS,
  removeEndpoint,
  rotateSecret,
} from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import { pruneEndedDeliveries } from "../../app/agent_computer/src/domain/outbound-webhooks/retention.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import type { ClaimedWebhookEvent, WebhookEventKind } from "../../app/agent_computer/src/store/port.ts";
import { ENDED_EVENTS_SQL } from "../../app/agent_computer/src/store/sql/outbound-webhooks.ts";
import { jobDir } from "../helpers/automation.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const POLICY: DeliveryPolicy = { backoffMs: [1000, 4000], disableAfter: 2, leaseMs: 30_000 };
const OK = { ok: true, statusCode: 204, errorKind: null, durationMs: 3 };
const HTTP_500 = { ok: false, statusCode: 500, errorKind: "http_status", durationMs: 3 };
const noJitter = () => 0;

describe.each(storeNames)("outbound webhooks [%s]", (storeName) => {
  let mesh: MeshAgents;
  const deps = () => mesh.deps();
  const add = (agentId: string, events: WebhookEventKind[]) =>
    addEndpoint(deps(), {
      agentId,
      token: mesh.token(agentId),
      url: "https://hooks.example.com/a?key=1",
      events,
      allowPrivate: false,
    });
  const send = (from: string, to: string, body = "the secret body text") => {
    mesh.clock.advance(1000);
    return sendMessage(deps(), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: [to] }, body });
  };
  const events = (endpointId: string) =>
    mesh.target.sql(
      "SELECT id, type, payload, state, attempts FROM webhook_events WHERE endpoint_id = $1 ORDER BY created_at, id",
      [endpointId],
    );
  const claim = (workerId: string, limit = 100) => claimDeliveries(deps(), { workerId, limit, policy: POLICY });
  /** Claims and settles every due event of `endpointId` with `result`; returns how many it settled. */
  const settleDue = async (endpointId: string, result: typeof OK | typeof HTTP_500) => {
    const claimed = (await claim("w1")).filter((c) => c.endpoint.id === endpointId);
    for (const c of claimed) await settleDelivery(deps(), c, result, POLICY, noJitter);
    return claimed.length;
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["owner", "sender", "blocked", "other"]) await mesh.join(agent);
  });
  afterAll(async () => mesh?.close());

  test("a delivered message enqueues one event per endpoint that asked for messages, with no body, in the send's transaction", async () => {
    const messages = await add("owner", ["message"]);
    const tasksOnly = await add("owner", ["task"]);
    expect(messages.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(messages.url).toBe("https://hooks.example.com/a?…");
    const sent = await send("sender", "owner");
    const [event] = await events(messages.id);
    expect(await events(tasksOnly.id)).toEqual([]);
    expect(event).toMatchObject({ type: "message.received", state: "pending" });
    const payload = JSON.parse(String(event?.payload));
    expect(payload).toMatchObject({
      type: "message.received",
      data: {
        agent_id: "owner",
        message_id: sent.id,
        sender: "sender",
        kind: "message",
        delivery: "pending",
        seq: expect.any(Number),
      },
    });
    expect(String(event?.payload)).not.toContain("secret body");
    // Mail to someone else is not the owner's event.
    await send("sender", "other");
    expect(await events(messages.id)).toHaveLength(1);
    await removeEndpoint(deps(), { agentId: "owner", token: mesh.token("owner"), endpointId: tasksOnly.id });
    await removeEndpoint(deps(), { agentId: "owner", token: mesh.token("owner"), endpointId: messages.id });
  });

  test("a send refused by the owner's policy enqueues nothing; a task assigned to the owner does, without its text", async () => {
    const endpoint = await add("owner", ["message", "task"]);
    await manageContacts(deps(), {
      agentId: "owner",
      token: mesh.token("owner"),
      change: { kind: "block", contacts: ["blocked"] },
    });
    expect(await failure(send("blocked", "owner"))).toMatchObject({ code: "REFUSED_BY_POLICY" });
    // A send that commits for another recipient still enqueues nothing for the one that refused it.
    mesh.clock.advance(1000);
    const mixed = await sendMessage(deps(), {
      from: "blocked",
      token: mesh.token("blocked"),
      recipients: { kind: "to", agentIds: ["owner", "other"] },
      body: "b",
    });
    expect(mixed.recipients.map((r) => r.outcome).sort()).toEqual(["live", "refused_by_policy"]);
    expect(await events(endpoint.id)).toEqual([]);
    await mesh.target.sql("UPDATE agents SET capabilities = $1 WHERE name = $2", ['["webhooks-test"]', "owner"]);
    const posted = await postTask(deps(), {
      agentId: "sender",
      token: mesh.token("sender"),
      title: "task title text",
      body: "task body text",
      requireCaps: ["webhooks-test"],
      priority: "normal",
    });
    expect(posted.routed).toBe("assigned");
    const types = (await events(endpoint.id)).map((e) => e.type);
    // The assignment, and the mesh's notice of it in the owner's inbox.
    expect(types.sort()).toEqual(["message.received", "task.assigned"]);
    const task = (await events(endpoint.id)).find((e) => e.type === "task.assigned");
    expect(JSON.parse(String(task?.payload)).data).toMatchObject({ task_id: posted.task.id, poster: "sender" });
    expect(String(task?.payload)).not.toMatch(/task (title|body) text/);
    await removeEndpoint(deps(), { agentId: "owner", token: mesh.token("owner"), endpointId: endpoint.id });
  });

  test("a failed run of the owner's job enqueues run_failed without its error text or output", async () => {
    const endpoint = await add("owner", ["run_failed"]);
    const job = await createJob(deps(), {
      agentId: "owner",
      token: mesh.token("owner"),
      dir: jobDir("throw new Error('x')"),
      label: "nightly",
      wakeOnFailure: false,
      timeoutSeconds: 60,
    });
    await startManualRun(deps(), { agentId: "owner", token: mesh.token("owner"), jobId: job.id, data: null });
    const [claimed] = (await claimAttempts(deps(), { workerId: "w", leaseMs: 10_000, limit: 10 })).filter(
      (c) => c.job.id === job.id,
    );
    if (!claimed) throw new Error("the run was not claimed");
    const outcome = { state: "failed" as const, exitCode: 1, signal: null, errorKind: "exit_code", error: "private error text" };
    await finishAttempt(deps(), claimed.fence, {
      ...outcome,
      stdoutTail: "",
      stderrTail: "private stderr",
      finishedAt: mesh.clock.now,
    });
    const [event] = await events(endpoint.id);
    expect(JSON.parse(String(event?.payload))).toMatchObject({
      type: "automation_run.failed",
      data: { automation_job_id: job.id, run_id: claimed.run.id, error_kind: "exit_code", exit_code: 1 },
    });
    expect(String(event?.payload)).not.toMatch(/private/);
    await removeEndpoint(deps(), { agentId: "owner", token: mesh.token("owner"), endpointId: endpoint.id });
  });

  test("a claim holds the event: another worker gets nothing until the lease lapses, then the first worker is fenced", async () => {
    const endpoint = await add("other", ["message"]);
    await send("sender", "other");
    const [first, ...rest] = await claim("w1");
    expect(rest).toEqual([]);
    expect(first?.attempt).toBe(1);
    expect(await claim("w2")).toEqual([]);
    expect(await deliveryDue(deps())).toBe(false);
    mesh.clock.advance(POLICY.leaseMs + 1);
    const [second] = await claim("w2");
    expect(second).toMatchObject({ attempt: 2, event: { id: first?.event.id } });
    // The first worker comes back: its result is not recorded.
    expect(await settleDelivery(deps(), first as ClaimedWebhookEvent, OK, POLICY)).toEqual({});
    expect((await settleDelivery(deps(), second as ClaimedWebhookEvent, OK, POLICY)).event?.state).toBe("delivered");
    const attempts = await listDeliveries(deps(), {
      agentId: "other",
      token: mesh.token("other"),
      endpointId: endpoint.id,
      limit: 10,
    });
    expect(attempts.attempts.map((a) => [a.attempt, a.worker_id, a.outcome, a.status_code])).toEqual([
      [2, "w2", "delivered", 204],
      [1, "w1", "lost", null],
    ]);
    expect(await claim("w3")).toEqual([]);
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
  });

  test("failures retry on the backoff schedule; the last one fails the event; a streak disables the endpoint and tells its owner", async () => {
    const endpoint = await add("owner", ["message"]);
    const other = await add("owner", ["task"]);
    await send("sender", "owner", "one");
    expect(await settleDue(endpoint.id, HTTP_500)).toBe(1);
    let [event] = await events(endpoint.id);
    expect(event).toMatchObject({ state: "pending", attempts: 1 });
    // Not due before its first backoff step (1 s, no jitter here), due right at it.
    mesh.clock.advance(999);
    expect(await settleDue(endpoint.id, HTTP_500)).toBe(0);
    mesh.clock.advance(1);
    expect(await settleDue(endpoint.id, HTTP_500)).toBe(1);
    mesh.clock.advance(4000);
    expect(await settleDue(endpoint.id, HTTP_500)).toBe(1);
    [event] = await events(endpoint.id);
    expect(event).toMatchObject({ state: "failed", attempts: 3 });
    mesh.clock.advance(60_000);
    expect(await settleDue(endpoint.id, HTTP_500)).toBe(0);
    let [view] = (await listEndpoints(deps(), { agentId: "owner", token: mesh.token("owner") })).endpoints.filter(
      (e) => e.id === endpoint.id,
    );
    expect(view).toMatchObject({ state: "active", failed_streak: 1, events_by_state: { failed: 1 } });

    // The second event in a row to fail every attempt disables it, and the owner hears of it in its inbox.
    await send("sender", "owner", "two");
    for (const wait of [0, 1000, 4000]) {
      mesh.clock.advance(wait);
      expect(await settleDue(endpoint.id, HTTP_500)).toBe(1);
    }
    [view] = (await listEndpoints(deps(), { agentId: "owner", token: mesh.token("owner") })).endpoints.filter(
      (e) => e.id === endpoint.id,
    );
    expect(view).toMatchObject({ state: "disabled", failed_streak: 2, events_by_state: { failed: 2 } });
    expect(view?.disabled_reason).toContain("HTTP 500");
    const inbox = await readInbox(deps(), { agentId: "owner", token: mesh.token("owner"), limit: 100 });
    const notice = inbox.messages.filter((m) => m.from === "agent-computer" && m.body.includes(endpoint.id));
    expect(notice).toHaveLength(1);
    expect(notice[0]?.body).not.toContain("whsec_");
    expect(notice[0]?.body).not.toContain("hooks.example.com");
    // The other endpoint of the owner is untouched.
    expect(
      (await listEndpoints(deps(), { agentId: "owner", token: mesh.token("owner") })).endpoints.find((e) => e.id === other.id),
    ).toMatchObject({ state: "active", failed_streak: 0 });

    // Disabled: nothing new is recorded for it.
    await send("sender", "owner", "three");
    expect(await events(endpoint.id)).toHaveLength(2);

    // Enabled again: the streak starts over, and a success keeps it at zero.
    const enabled = await enableEndpoint(deps(), { agentId: "owner", token: mesh.token("owner"), endpointId: endpoint.id });
    expect(enabled).toMatchObject({ changed: true, state: "active", failed_streak: 0, disabled_reason: null });
    await send("sender", "owner", "four");
    expect(await settleDue(endpoint.id, OK)).toBe(1);
    expect((await events(endpoint.id)).map((e) => e.state)).toEqual(["failed", "failed", "delivered"]);
    for (const id of [endpoint.id, other.id])
      await removeEndpoint(deps(), { agentId: "owner", token: mesh.token("owner"), endpointId: id });
  });

  test("pending events of a disabled endpoint are kept and sent once it is enabled; removing drops them", async () => {
    const endpoint = await add("other", ["message"]);
    await send("sender", "other", "a");
    await send("sender", "other", "b");
    // Fail the first event to the end with the second still pending: the streak of 2 is reached on the next one.
    await mesh.target.sql("UPDATE webhook_endpoints SET failed_streak = 1 WHERE id = $1", [endpoint.id]);
    const [first] = (await claim("w1", 1)).filter((c) => c.endpoint.id === endpoint.id);
    await mesh.target.sql("UPDATE webhook_events SET attempts = 3 WHERE id = $1", [first?.event.id]);
    await mesh.target.sql("UPDATE webhook_attempts SET attempt = 3 WHERE event_id = $1", [first?.event.id]);
    const settled = await settleDelivery(deps(), { ...(first as ClaimedWebhookEvent), attempt: 3 }, HTTP_500, POLICY);
    expect(settled.disabled?.endpointId).toBe(endpoint.id);
    mesh.clock.advance(60_000);
    expect(await claim("w1")).toEqual([]);
    await enableEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
    const resumed = await claim("w1");
    expect(resumed.map((c) => c.event.id)).toHaveLength(1);
    expect(resumed[0]?.event.id).not.toBe(first?.event.id);
    const removed = await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
    expect(removed.events_dropped).toBe(1);
    expect(await events(endpoint.id)).toEqual([]);
    expect(
      Number((await mesh.target.sql("SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = $1", [endpoint.id]))[0]?.n),
    ).toBe(0);
  });

  test("an agent keeps at most MAX_ENDPOINTS_PER_AGENT endpoints; one more is CONFLICT and writes nothing", async () => {
    const added = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_AGENT; i++) added.push(await add("sender", ["message"]));
    expect(await failure(add("sender", ["message"]))).toMatchObject({ code: "CONFLICT" });
    expect(await mesh.count("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE owner = 'sender'")).toBe(MAX_ENDPOINTS_PER_AGENT);
    for (const e of added) await removeEndpoint(deps(), { agentId: "sender", token: mesh.token("sender"), endpointId: e.id });
  });

  test("another agent's endpoint is NOT_FOUND to every call, and the owner's token is required", async () => {
    const endpoint = await add("owner", ["message"]);
    const as = (agentId: string) => ({ agentId, token: mesh.token(agentId), endpointId: endpoint.id });
    expect(await failure(removeEndpoint(deps(), as("other")))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(enableEndpoint(deps(), as("other")))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(listDeliveries(deps(), { ...as("other"), limit: 5 }))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(removeEndpoint(deps(), { ...as("owner"), token: "act_wrong" }))).toMatchObject({ code: "AUTH_FAILED" });
    expect((await listEndpoints(deps(), { agentId: "owner", token: mesh.token("owner") })).endpoints.map((e) => e.id)).toContain(
      endpoint.id,
    );
    await removeEndpoint(deps(), as("owner"));
  });

  test("an unregistered name takes its endpoints, their events and attempts with it", async () => {
    await mesh.join("leaver");
    const endpoint = await add("leaver", ["message"]);
    await send("sender", "leaver");
    expect((await claim("w1")).some((c) => c.endpoint.id === endpoint.id)).toBe(true);
    await unregisterAgent(deps(), { agentId: "leaver", token: mesh.token("leaver") });
    for (const table of [
      "webhook_endpoints WHERE id",
      "webhook_events WHERE endpoint_id",
      "webhook_attempts WHERE endpoint_id",
    ]) {
      expect(Number((await mesh.target.sql(`SELECT COUNT(*) AS n FROM ${table} = $1`, [endpoint.id]))[0]?.n), table).toBe(0);
    }
  });

  test("rotate-secret keeps the old secret beside the new one for the overlap, and a claim carries both", async () => {
    const endpoint = await add("other", ["message"]);
    const rotated = await rotateSecret(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.previous_secret_until).toBe(new Date(mesh.clock.now + ROTATION_OVERLAP_MS).toISOString());
    await send("sender", "other");
    const [claimed] = (await claim("w1")).filter((c) => c.endpoint.id === endpoint.id);
    expect(claimed?.endpoint).toMatchObject({
      secret: rotated.secret,
      previousSecret: endpoint.secret,
      previousSecretUntil: mesh.clock.now + ROTATION_OVERLAP_MS - 1000,
    });
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
  });

  test("a private endpoint is delivered only by a worker on the host it was added on; a public one by any", async () => {
    const elsewhere = (): Deps => ({ ...deps(), host: "another-host" });
    const privateEndpoint = await addEndpoint(deps(), {
      agentId: "other",
      token: mesh.token("other"),
      url: "http://127.0.0.1:9000/hook",
      events: ["message"],
      allowPrivate: true,
    });
    await send("sender", "other", "for the private endpoint");
    expect(await deliveryDue(elsewhere())).toBe(false);
    expect(await claimDeliveries(elsewhere(), { workerId: "w-elsewhere", limit: 100, policy: POLICY })).toEqual([]);
    expect(await deliveryDue(deps())).toBe(true);
    const here = await claimDeliveries(deps(), { workerId: "w-here", limit: 100, policy: POLICY });
    expect(here.map((c) => c.endpoint.id)).toEqual([privateEndpoint.id]);
    expect(here[0]?.endpoint.privateHost).toBe("test-host");
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: privateEndpoint.id });

    const publicEndpoint = await add("other", ["message"]);
    await send("sender", "other", "for the public endpoint");
    const anywhere = await claimDeliveries(elsewhere(), { workerId: "w-elsewhere", limit: 100, policy: POLICY });
    expect(anywhere.map((c) => c.endpoint.id)).toEqual([publicEndpoint.id]);
    expect(anywhere[0]?.endpoint.privateHost).toBeNull();
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: publicEndpoint.id });
  });

  test("retention finds the oldest ended events through their own index, never by reading the whole outbox", async () => {
    let plan: string;
    if (storeName === "sqlite") {
      const explain = ENDED_EVENTS_SQL.replace("$1", "?1").replace("$2", "?2");
      const rows = await mesh.target.sql(`EXPLAIN QUERY PLAN ${explain}`, [0, 10]);
      plan = rows.map((r) => String(r.detail)).join("\n");
      expect(plan).not.toMatch(/SCAN webhook_events(?! USING)/);
      expect(plan).not.toContain("TEMP B-TREE");
    } else {
      // A small table is cheaper to scan, so the planner is told that scans are out, as on a large outbox.
      const { SQL } = await import("bun");
      const db = new SQL({ url: mesh.target.env.AGENT_COMPUTER_DATABASE_URL as string, max: 1 });
      try {
        await db.unsafe("SET enable_seqscan = off");
        const rows = await db.unsafe(`EXPLAIN ${ENDED_EVENTS_SQL}`, [0, 10]);
        plan = [...rows].map((r) => String((r as Record<string, unknown>)["QUERY PLAN"])).join("\n");
      } finally {
        await db.close();
      }
      expect(plan).not.toContain("Sort");
    }
    expect(plan).toContain("webhook_events_ended");
  });

  test("retention prunes delivered and failed events that ended before the period, with their attempts; pending ones stay", async () => {
    const DAY = 86_400_000;
    const endpoint = await add("other", ["message"]);
    for (const body of ["delivered", "failed", "awaiting retry", "in flight"]) await send("sender", "other", body);
    // One endpoint is sent one attempt at a time: each event is claimed once the one before it is settled.
    const next = async () => {
      const claimed = (await claim("w1")).filter((c) => c.endpoint.id === endpoint.id);
      expect(claimed).toHaveLength(1);
      return claimed[0] as ClaimedWebhookEvent;
    };
    const lastTry: DeliveryPolicy = { ...POLICY, backoffMs: [], disableAfter: 100 };
    const delivered = await next();
    expect((await settleDelivery(deps(), delivered, OK, POLICY)).event?.state).toBe("delivered");
    const failed = await next();
    expect((await settleDelivery(deps(), failed, HTTP_500, lastTry)).event?.state).toBe("failed");
    const retrying = await next();
    expect((await settleDelivery(deps(), retrying, HTTP_500, POLICY)).event?.state).toBe("pending");
    // The retry is not due yet, so the last event is next; it stays in flight.
    const inFlight = await next();
    expect(inFlight.event.id).not.toBe(retrying.event.id);

    // Eight days on: one more event ends now, inside the period.
    mesh.clock.advance(8 * DAY);
    await send("sender", "other", "recent");
    // The two pending events come first again (a lapsed lease, a retry now due); each fails once more and stays
    // pending, and then the recent one is claimed.
    const earlier = new Set([delivered, failed, retrying, inFlight].map((c) => c.event.id));
    let recent = await next();
    for (let i = 0; i < 2 && earlier.has(recent.event.id); i++) {
      expect((await settleDelivery(deps(), recent, HTTP_500, POLICY, noJitter)).event?.state).toBe("pending");
      recent = await next();
    }
    expect(earlier.has(recent.event.id)).toBe(false);
    expect((await settleDelivery(deps(), recent, OK, POLICY)).event?.state).toBe("delivered");
    const attemptsOf = async (eventId: string | undefined) =>
      Number((await mesh.target.sql("SELECT COUNT(*) AS n FROM webhook_attempts WHERE event_id = $1", [eventId]))[0]?.n);
    expect(await attemptsOf(delivered?.event.id)).toBe(1);

    // One batch per round: the round stops at its limit and says more is left; the next round finishes.
    expect(await pruneEndedDeliveries(deps(), 7, { batch: 1, batches: 1 })).toEqual({ pruned: 1, more: true });
    expect(await pruneEndedDeliveries(deps(), 7, { batch: 1 })).toEqual({ pruned: 1, more: false });
    expect(await pruneEndedDeliveries(deps(), 7)).toEqual({ pruned: 0, more: false });

    const kept = await events(endpoint.id);
    expect(kept.map((e) => e.id)).toEqual([retrying.event.id, inFlight.event.id, recent.event.id]);
    expect(kept.map((e) => e.state)).toEqual(["pending", "pending", "delivered"]);
    for (const gone of [delivered, failed]) expect(await attemptsOf(gone?.event.id)).toBe(0);
    for (const stays of [inFlight, retrying, recent]) expect(await attemptsOf(stays?.event.id)).toBeGreaterThan(0);

    // A longer period keeps the recent event; a pending event is never pruned however old it is.
    mesh.clock.advance(30 * DAY);
    expect(await pruneEndedDeliveries(deps(), 60)).toEqual({ pruned: 0, more: false });
    expect(await pruneEndedDeliveries(deps(), 7)).toEqual({ pruned: 1, more: false });
    expect((await events(endpoint.id)).map((e) => e.id)).toEqual([retrying.event.id, inFlight.event.id]);
    await removeEndpoint(deps(), { agentId: "other", token: mesh.token("other"), endpointId: endpoint.id });
  });
});
