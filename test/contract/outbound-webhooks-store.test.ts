// Outbound webhooks against every store: events enter the outbox in the transaction of their cause (a send refused
// by policy enqueues nothing; kinds an endpoint did not ask for are not enqueued), claims hold a lease that a second
// worker cannot take until it lapses (and then the first worker's result is fenced), failures are retried on the
// backoff schedule, the last failure ends the event, and an endpoint that keeps failing is disabled with a notice
// in its owner's inbox. Endpoints' own rules: outbound-webhooks-endpoints-store.test.ts; retention:
// outbound-webhooks-retention-store.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claimAttempts, finishAttempt } from "../../app/agent_computer/src/domain/automation/attempts.ts";
import { createJob } from "../../app/agent_computer/src/domain/automation/jobs.ts";
import { startManualRun } from "../../app/agent_computer/src/domain/automation/manual-run.ts";
import { manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { deliveryDue, settleDelivery } from "../../app/agent_computer/src/domain/outbound-webhooks/delivery.ts";
import {
  enableEndpoint,
  listDeliveries,
  listEndpoints,
  removeEndpoint,
} from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import type { ClaimedWebhookEvent } from "../../app/agent_computer/src/store/port.ts";
import { jobDir } from "../helpers/automation.ts";
import { failure, type MeshAgents } from "../helpers/mesh.ts";
import { HTTP_500, OK, openWebhookMesh, POLICY, webhookCalls } from "../helpers/outbound-webhooks.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("outbound webhooks [%s]", (storeName) => {
  let mesh: MeshAgents;
  const { deps, add, send, events, claim, settleDue } = webhookCalls(() => mesh);

  beforeAll(async () => {
    mesh = await openWebhookMesh(storeName);
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
});
