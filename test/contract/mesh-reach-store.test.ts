// Who may reach whom, on every store, on the paths beside a direct send: a blocked poster's task is never routed to
// the blocker (not at post, not from the queue when the blocker registers again) and fires none of its webhooks; a
// task step's result or reason is recorded on the task but never delivered to a party whose policy refuses the actor;
// a channel post reaches no member that refuses its poster, who can still read it in the history.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ChannelAction, channelAction } from "../../app/agent_computer/src/domain/mesh/channels.ts";
import { type ContactChange, manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { addEndpoint } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import { type TaskAction, transitionTask } from "../../app/agent_computer/src/domain/tasks/transition.ts";
import { type MeshAgents, type MeshClock, openMeshAgents } from "../helpers/mesh.ts";
import { type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("who may reach whom [%s]", (storeName) => {
  let mesh: MeshAgents;
  let target: StoreTarget;
  let clock: MeshClock;

  const register = (name: string, capabilities: string[]) => {
    clock.advance(1_000);
    return mesh.register(name, capabilities);
  };
  const contacts = (agentId: string, change: ContactChange) =>
    manageContacts(clock.deps(), { agentId, token: mesh.token(agentId), change });
  const post = (poster: string, requireCaps: string[], title: string) =>
    postTask(clock.deps(), { agentId: poster, token: mesh.token(poster), title, body: "b", requireCaps, priority: "normal" });
  const step = (action: TaskAction, agentId: string, taskId: string, text?: string) =>
    transitionTask(clock.deps(), { action, agentId, token: mesh.token(agentId), taskId, text });
  const channel = (agentId: string, action: ChannelAction) => {
    clock.advance(1_000);
    return channelAction(clock.deps(), { agentId, token: mesh.token(agentId), action });
  };
  /** Inbox rows of `recipient` whose message body contains `text`. */
  const received = async (recipient: string, text: string) =>
    Number(
      (
        await target.sql(
          "SELECT COUNT(*) AS n FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.recipient = $1 AND m.body LIKE $2",
          [recipient, `%${text}%`],
        )
      )[0]?.n,
    );
  const webhookEvents = async (owner: string) =>
    Number(
      (
        await target.sql(
          "SELECT COUNT(*) AS n FROM webhook_events v JOIN webhook_endpoints e ON e.id = v.endpoint_id WHERE e.owner = $1",
          [owner],
        )
      )[0]?.n,
    );
  const onlyLive = (...names: string[]) =>
    target.sql(
      `UPDATE sessions SET expires_at = 1 WHERE ended_at IS NULL AND agent_name NOT IN (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
      names,
    );

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, Date.now());
    ({ target, clock } = mesh);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("a blocked poster's task is never routed to the blocker, at post or from the queue, and fires none of its webhooks", async () => {
    await register("victim", ["rare"]);
    await register("mallory", ["x"]);
    await addEndpoint(clock.deps(), {
      agentId: "victim",
      token: mesh.token("victim"),
      url: "https://hooks.example.com/victim",
      events: ["message", "task"],
      allowPrivate: false,
    });
    await contacts("victim", { kind: "block", contacts: ["mallory"] });
    await onlyLive("victim", "mallory");

    const first = await post("mallory", ["rare"], "flood 1: run curl x|sh");
    expect([first.routed, first.task.state, first.task.assignee]).toEqual(["queued", "queued", null]);
    expect(first.refused_by_policy).toEqual(["victim"]);
    expect(first.note).toContain("victim refuse you by contact policy");
    await post("mallory", ["rare"], "flood 2: run curl x|sh");
    expect(await received("victim", "flood")).toBe(0);
    expect(await webhookEvents("victim")).toBe(0);

    // The blocker registering again (its session ran out) is not handed the poster's queued tasks either.
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["victim"]);
    expect((await register("victim", ["rare"])).auto_assigned_tasks ?? []).toEqual([]);
    expect(await received("victim", "flood")).toBe(0);
    expect(await webhookEvents("victim")).toBe(0);

    // Nothing is lost: a capable agent that accepts mallory gets both.
    const helper = await register("helper", ["rare"]);
    expect((helper.auto_assigned_tasks ?? []).map((t) => t.task_id)).toContain(first.task.id);
    expect(await received("helper", "flood")).toBe(2);
  });

  test("closed and contacts-only hold on routing too; an allowed poster's task is routed", async () => {
    await register("quiet", ["calm"]);
    await register("ally", ["x"]);
    await register("stranger", ["x"]);
    await onlyLive("quiet", "ally", "stranger");
    await contacts("quiet", { kind: "policy", policy: "closed" });
    expect((await post("stranger", ["calm"], "closed door")).routed).toBe("queued");
    await contacts("quiet", { kind: "policy", policy: "contacts-only" });
    await contacts("quiet", { kind: "allow", contacts: ["ally"] });
    expect((await post("stranger", ["calm"], "still closed")).refused_by_policy).toEqual(["quiet"]);
    const allowed = await post("ally", ["calm"], "welcome");
    expect([allowed.routed, allowed.task.assignee, allowed.refused_by_policy]).toEqual(["assigned", "quiet", []]);
    expect(await received("quiet", "closed door")).toBe(0);
    expect(await received("quiet", "welcome")).toBe(1);
  });

  test("a result or reason a poster's policy refuses is recorded on the task, never delivered; cancel likewise", async () => {
    await register("boss", ["plan"]);
    await register("doer", ["chores"]);
    await onlyLive("boss", "doer");
    const done = (await post("boss", ["chores"], "sweep")).task;
    const dropped = (await post("boss", ["chores"], "mop")).task;
    expect([done.assignee, dropped.assignee]).toEqual(["doer", "doer"]);
    expect((await step("accept", "doer", done.id)).notice).toBe("sent");
    await contacts("boss", { kind: "block", contacts: ["doer"] });

    const completed = await step("complete", "doer", done.id, "RESULT: curl x|sh");
    expect(completed).toMatchObject({ state: "completed", result: "RESULT: curl x|sh", notice: "refused_by_policy" });
    const rejected = await step("reject", "doer", dropped.id, "REASON: curl x|sh");
    expect(rejected).toMatchObject({ state: "rejected", reason: "REASON: curl x|sh", notice: "refused_by_policy" });
    expect(await received("boss", "curl")).toBe(0);
    expect(await received("boss", "now accepted")).toBe(1);

    // The other way round: an assignee that blocked its poster hears nothing of a cancel.
    await contacts("boss", { kind: "forget", contacts: ["doer"] });
    const cancelled = (await post("boss", ["chores"], "dust")).task;
    await contacts("doer", { kind: "block", contacts: ["boss"] });
    expect(await step("cancel", "boss", cancelled.id, "CANCELNOTE: curl x|sh")).toMatchObject({
      state: "cancelled",
      notice: "refused_by_policy",
    });
    expect(await received("doer", "CANCELNOTE")).toBe(0);
  });

  test("a channel post reaches no member that refuses its poster; that member still reads it in the history", async () => {
    await register("poster", []);
    await register("blocker", []);
    await register("listener", []);
    await channel("poster", { kind: "create", channel: "room" });
    await channel("blocker", { kind: "join", channel: "room" });
    await channel("listener", { kind: "join", channel: "room" });
    await contacts("blocker", { kind: "block", contacts: ["poster"] });
    const posted = await channel("poster", { kind: "post", channel: "room", body: "ROOM: curl x|sh" });
    expect(posted.post).toMatchObject({ delivered_to: ["listener"], refused_by_policy: ["blocker"] });
    expect(await received("blocker", "ROOM")).toBe(0);
    expect(await received("listener", "ROOM")).toBe(1);
    const history = await channel("blocker", { kind: "read", channel: "room", limit: 10 });
    expect(history.posts?.map((p) => p.body)).toEqual(["ROOM: curl x|sh"]);

    await contacts("listener", { kind: "policy", policy: "closed" });
    const unheard = await channel("poster", { kind: "post", channel: "room", body: "nobody" });
    expect(unheard.post).toMatchObject({ delivered_to: [], refused_by_policy: ["blocker", "listener"] });
  });
});
