// Channels against every store: create, join, leave, post and read; members receive posts in their inbox with the
// channel named; only members post or read; membership survives re-check-in and goes with an unregistered name.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { unregisterAgent } from "../../app/agent_computer/src/domain/agents/unregister.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { type ChannelAction, channelAction } from "../../app/agent_computer/src/domain/mesh/channels.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("channels [%s]", (storeName) => {
  let mesh: MeshAgents;
  const deps = (): Deps => mesh.deps();

  const act = (agentId: string, action: ChannelAction) => {
    mesh.clock.advance(1000);
    return channelAction(deps(), { agentId, token: mesh.token(agentId), action });
  };
  const inbox = (agentId: string) => readInbox(deps(), { agentId, token: mesh.token(agentId), limit: 50 });
  const count = (sql: string) => mesh.count(sql);

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["lead", "dev", "outsider"]) await mesh.join(agent);
  });
  afterAll(async () => mesh?.close());

  test("the creator is the first member; a second create of the name is CONFLICT; joining twice changes nothing", async () => {
    expect(await act("lead", { kind: "create", channel: "release" })).toMatchObject({
      changed: true,
      channel: { name: "release", created_by: "lead", members: ["lead"] },
    });
    expect(await failure(act("dev", { kind: "create", channel: "release" }))).toMatchObject({ code: "CONFLICT" });
    expect(await act("dev", { kind: "join", channel: "release" })).toMatchObject({
      changed: true,
      channel: { members: ["dev", "lead"] },
    });
    expect(await act("dev", { kind: "join", channel: "release" })).toMatchObject({ changed: false });
    expect(await failure(act("dev", { kind: "join", channel: "nope" }))).toMatchObject({ code: "NOT_FOUND" });
  });

  test("a post reaches every other member's inbox with the channel named; the history shows it to members", async () => {
    const posted = await act("lead", { kind: "post", channel: "release", body: "v1.2 tagged" });
    expect(posted.post).toMatchObject({ delivered_to: ["dev"], not_checked_in: [] });
    const devInbox = await inbox("dev");
    expect(devInbox.messages.at(-1)).toMatchObject({
      id: posted.post?.id,
      from: "lead",
      channel: "release",
      body: "v1.2 tagged",
    });
    expect((await inbox("lead")).messages.map((m) => m.id)).not.toContain(posted.post?.id);
    const history = await act("dev", { kind: "read", channel: "release", limit: 50 });
    expect(history.posts?.map((p) => [p.from, p.body])).toEqual([["lead", "v1.2 tagged"]]);
  });

  test("only members post or read; a refused post stores nothing", async () => {
    const before = await count("SELECT COUNT(*) AS n FROM messages");
    expect(await failure(act("outsider", { kind: "post", channel: "release", body: "hi" }))).toMatchObject({
      code: "NOT_A_MEMBER",
    });
    expect(await failure(act("outsider", { kind: "read", channel: "release", limit: 10 }))).toMatchObject({
      code: "NOT_A_MEMBER",
    });
    expect(await count("SELECT COUNT(*) AS n FROM messages")).toBe(before);
    // Listing every channel is not membership.
    expect((await act("outsider", { kind: "list", all: true })).channels?.map((c) => c.name)).toEqual(["release"]);
    expect((await act("outsider", { kind: "list", all: false })).channels).toEqual([]);
  });

  test("membership survives the end of a session and a new check-in; a member away gets no inbox copy", async () => {
    await mesh.store.write((tx) => tx.mesh.endExpiredSessions(Number.MAX_SAFE_INTEGER));
    await mesh.join("lead");
    const whileAway = await act("lead", { kind: "post", channel: "release", body: "while you were away" });
    expect(whileAway.post).toMatchObject({ delivered_to: [], not_checked_in: ["dev"] });
    await mesh.join("dev");
    expect((await act("dev", { kind: "list", all: false })).channels?.map((c) => c.name)).toEqual(["release"]);
    const after = await act("lead", { kind: "post", channel: "release", body: "welcome back" });
    expect(after.post).toMatchObject({ delivered_to: ["dev"] });
    expect((await inbox("dev")).messages.map((m) => m.body)).toEqual(["welcome back"]);
    // The history holds both, in order.
    const history = await act("dev", { kind: "read", channel: "release", limit: 2 });
    expect(history.posts?.map((p) => p.body)).toEqual(["while you were away", "welcome back"]);
  });

  test("a member that leaves gets no more posts; an unregistered name leaves every channel", async () => {
    expect(await act("dev", { kind: "leave", channel: "release" })).toMatchObject({
      changed: true,
      channel: { members: ["lead"] },
    });
    expect((await act("lead", { kind: "post", channel: "release", body: "anyone?" })).post).toMatchObject({ delivered_to: [] });
    await mesh.join("temp");
    await act("temp", { kind: "join", channel: "release" });
    await unregisterAgent(deps(), { agentId: "temp", token: mesh.token("temp") });
    expect(await count("SELECT COUNT(*) AS n FROM channel_members WHERE agent_name = 'temp'")).toBe(0);
  });
});
