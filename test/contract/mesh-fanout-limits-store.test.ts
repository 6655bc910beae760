// Every fan-out is rate-limited per sender the way sends are, on every store: a channel post and a task post count
// against the sender's message limit (shared with sends), and every inbox a message reaches against the sender's
// and the host's delivery budgets, so a post to a big channel weighs its members. Over a limit: RATE_LIMITED with
// retry_after_s, and nothing of the call is stored (the counters are taken in the transaction that writes).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { rateLimitsFromEnv } from "../../app/agent_computer/src/domain/identity/rate-config.ts";
import { type ChannelAction, channelAction } from "../../app/agent_computer/src/domain/mesh/channels.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

type Limits = Record<string, string>;

describe.each(storeNames)("fan-out rate limits [%s]", (storeName) => {
  let mesh: MeshAgents;
  const MINUTE = 60_000;
  /** The clock at the start of a fresh fixed window, so a test's calls all fall in one. */
  const freshWindow = () => mesh.clock.advance(MINUTE - (mesh.clock.now % MINUTE));
  const limited = (limits: Limits): Deps => ({ ...mesh.deps(), limits: rateLimitsFromEnv(limits) });

  const channel = (limits: Limits, agentId: string, action: ChannelAction) =>
    channelAction(limited(limits), { agentId, token: mesh.token(agentId), action });
  const post = (limits: Limits, agentId: string, channelName: string, body: string) =>
    channel(limits, agentId, { kind: "post", channel: channelName, body });
  const send = (limits: Limits, from: string, to: string[]) =>
    sendMessage(limited(limits), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: to }, body: "hi" });
  const messagesFrom = (sender: string) => mesh.count(`SELECT COUNT(*) AS n FROM messages WHERE sender = '${sender}'`);
  /** A channel `name` made by `owner`, whose members are `owner` and `members` (each checked in first). */
  const room = async (name: string, owner: string, members: string[]) => {
    for (const agent of [owner, ...members]) await mesh.join(agent);
    await channel({}, owner, { kind: "create", channel: name });
    for (const agent of members) await channel({}, agent, { kind: "join", channel: name });
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
  });
  afterAll(async () => mesh?.close());

  test("with the defaults, the 121st channel post of a minute is RATE_LIMITED, as the 121st send is", async () => {
    await room("chatty", "talker", ["ear"]);
    freshWindow();
    for (let i = 1; i <= 120; i++) await post({}, "talker", "chatty", `post ${i}`);
    const refused = await failure(post({}, "talker", "chatty", "post 121"));
    expect(refused).toMatchObject({ code: "RATE_LIMITED", details: { scope: "name", limit: 120, window_s: 60 } });
    expect((refused as { details: { retry_after_s: number } }).details.retry_after_s).toBeGreaterThanOrEqual(1);
    expect(await messagesFrom("talker")).toBe(120);
    // The next window takes posts again: the refused one was not counted.
    freshWindow();
    expect((await post({}, "talker", "chatty", "later")).post?.delivered_to).toEqual(["ear"]);
  });

  test("with the defaults, a post to a 400-member channel weighs 399 deliveries: the fourth in a minute is refused", async () => {
    const members = Array.from({ length: 399 }, (_, i) => `m${String(i).padStart(3, "0")}`);
    await room("crowd", "herald", members);
    freshWindow();
    // The post names the first few recipients and counts them all (the output budget).
    for (let i = 1; i <= 3; i++) expect((await post({}, "herald", "crowd", `news ${i}`)).post?.counts.delivered).toBe(399);
    const refused = await failure(post({}, "herald", "crowd", "news 4"));
    expect(refused).toMatchObject({ code: "RATE_LIMITED", details: { scope: "name", limit: 1200 } });
    expect((refused as Error).message).toContain("deliveries");
    expect(
      await mesh.count("SELECT COUNT(*) AS n FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.sender = 'herald'"),
    ).toBe(3 * 399);
  });

  test("sends, channel posts and task posts share the sender's message limit", async () => {
    await room("shared", "busy", ["peer"]);
    const limits = { AGENT_COMPUTER_RATE_SEND_PER_NAME: "3/60" };
    freshWindow();
    await send(limits, "busy", ["peer"]);
    await post(limits, "busy", "shared", "one");
    const task = (agentId: string) =>
      postTask(limited(limits), {
        agentId,
        token: mesh.token(agentId),
        title: "t",
        body: "b",
        requireCaps: ["none-has-this"],
        priority: "normal",
      });
    await task("busy");
    expect(await failure(task("busy"))).toMatchObject({ code: "RATE_LIMITED", details: { scope: "name", limit: 3 } });
    expect(await failure(post(limits, "busy", "shared", "two"))).toMatchObject({ code: "RATE_LIMITED" });
    expect(await failure(send(limits, "busy", ["peer"]))).toMatchObject({ code: "RATE_LIMITED" });
    expect(await mesh.count("SELECT COUNT(*) AS n FROM tasks WHERE poster = 'busy'")).toBe(1);
    expect(await messagesFrom("busy")).toBe(2);
    // Another sender is not affected.
    expect((await post(limits, "peer", "shared", "mine")).post?.delivered_to).toEqual(["busy"]);
  });

  test("the delivery budget counts each recipient of sends and posts; over it nothing is delivered", async () => {
    await room("five", "caster", ["r1", "r2", "r3", "r4"]);
    const limits = { AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "10/60" };
    freshWindow();
    await post(limits, "caster", "five", "first");
    await send(limits, "caster", ["r1", "r2", "r3", "r4"]);
    expect((await send(limits, "caster", ["r1", "r2"])).recipients).toHaveLength(2);
    const over = await failure(post(limits, "caster", "five", "third"));
    expect(over).toMatchObject({ code: "RATE_LIMITED", details: { scope: "name", limit: 10 } });
    expect(await messagesFrom("caster")).toBe(3);
    // A single call that reaches more inboxes than the whole budget is told so, without a retry-after that would lie.
    freshWindow();
    const never = await failure(post({ AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "3/60" }, "caster", "five", "too wide"));
    expect(never).toMatchObject({ code: "RATE_LIMITED", details: { count: 4, limit: 3 } });
    expect((never as { details: Record<string, unknown> }).details.retry_after_s).toBeUndefined();
  });

  test("a broadcast weighs every live agent it reaches, and counts once against the message limit", async () => {
    await mesh.join("announcer");
    freshWindow();
    const live = Number(
      (await mesh.target.sql("SELECT COUNT(*) AS n FROM sessions WHERE ended_at IS NULL AND agent_name <> 'announcer'"))[0]?.n,
    );
    expect(live).toBeGreaterThan(5);
    const broadcast = (limits: Limits) =>
      sendMessage(limited(limits), {
        from: "announcer",
        token: mesh.token("announcer"),
        recipients: { kind: "broadcast" },
        body: "all",
      });
    expect(await failure(broadcast({ AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "5/60" }))).toMatchObject({
      code: "RATE_LIMITED",
      details: { count: live, limit: 5 },
    });
    expect(await messagesFrom("announcer")).toBe(0);
    const sendLimit = { AGENT_COMPUTER_RATE_SEND_PER_NAME: "1/60" };
    expect((await broadcast(sendLimit)).recipients).toHaveLength(live);
    expect(await failure(broadcast(sendLimit))).toMatchObject({ code: "RATE_LIMITED", details: { scope: "name", limit: 1 } });
  });

  test("the host's delivery budget holds across senders", async () => {
    await room("hosted", "h1", ["h2", "h3"]);
    const limits = { AGENT_COMPUTER_RATE_DELIVER_PER_HOST: "5/60" };
    freshWindow();
    await post(limits, "h1", "hosted", "a");
    await post(limits, "h2", "hosted", "b");
    expect(await failure(post(limits, "h3", "hosted", "c"))).toMatchObject({
      code: "RATE_LIMITED",
      details: { scope: "host", limit: 5 },
    });
    expect(await messagesFrom("h3")).toBe(0);
  });
});
