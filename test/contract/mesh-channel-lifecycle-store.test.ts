// A channel with no members ends, on every store: nobody joins, reads or posts to it; its name is held for
// CHANNEL_NAME_HOLD_MS and then free for a new channel that shows none of the old one's posts. Members that go by
// unregister or revoke end it too.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { revokeToken } from "../../app/agent_computer/src/domain/agents/revoke.ts";
import { unregisterAgent } from "../../app/agent_computer/src/domain/agents/unregister.ts";
import { CHANNEL_NAME_HOLD_MS } from "../../app/agent_computer/src/domain/mesh/channel-lifecycle.ts";
import { type ChannelAction, channelAction } from "../../app/agent_computer/src/domain/mesh/channels.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("channel lifecycle [%s]", (storeName) => {
  let mesh: MeshAgents;
  const act = (agentId: string, action: ChannelAction) => {
    mesh.clock.advance(1000);
    return channelAction(mesh.deps(), { agentId, token: mesh.token(agentId), action });
  };
  const allChannels = async (agentId: string) =>
    ((await act(agentId, { kind: "list", all: true })).channels ?? []).map((c) => c.name);

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["lead", "dev", "squatter", "gone", "revoked"]) await mesh.join(agent);
  });
  afterAll(async () => mesh?.close());

  test("the last leave ends the channel; its name is held, then free for a new channel without the old posts", async () => {
    await act("lead", { kind: "create", channel: "ephemeral" });
    await act("dev", { kind: "join", channel: "ephemeral" });
    await act("lead", { kind: "post", channel: "ephemeral", body: "the old channel's post" });
    expect((await act("dev", { kind: "leave", channel: "ephemeral" })).note).toBeUndefined();
    const last = await act("lead", { kind: "leave", channel: "ephemeral" });
    expect(last).toMatchObject({ changed: true, channel: { members: [] } });
    expect(last.note).toMatch(/channel ended; its name is free again at /);

    expect(await allChannels("dev")).not.toContain("ephemeral");
    for (const action of [
      { kind: "join", channel: "ephemeral" },
      { kind: "read", channel: "ephemeral", limit: 10 },
      { kind: "post", channel: "ephemeral", body: "anyone here?" },
    ] as ChannelAction[]) {
      expect(await failure(act("dev", action))).toMatchObject({ code: "NOT_FOUND", message: expect.stringMatching(/ended/) });
    }
    const held = await failure(act("squatter", { kind: "create", channel: "ephemeral" }));
    expect(held).toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/free again at/) });

    mesh.clock.advance(CHANNEL_NAME_HOLD_MS);
    expect(await act("squatter", { kind: "create", channel: "ephemeral" })).toMatchObject({
      changed: true,
      channel: { created_by: "squatter", members: ["squatter"] },
    });
    expect((await act("squatter", { kind: "read", channel: "ephemeral", limit: 10 })).posts).toEqual([]);
  });

  test("a channel whose only member is unregistered or revoked ends too", async () => {
    await act("gone", { kind: "create", channel: "gone-room" });
    await act("revoked", { kind: "create", channel: "revoked-room" });
    await unregisterAgent(mesh.deps(), { agentId: "gone", token: mesh.token("gone") });
    await revokeToken(mesh.deps(), { agentId: "revoked", token: mesh.token("revoked"), issueRecovery: false });
    const names = await allChannels("dev");
    expect(names).not.toContain("gone-room");
    expect(names).not.toContain("revoked-room");
    expect(await failure(act("dev", { kind: "join", channel: "gone-room" }))).toMatchObject({ code: "NOT_FOUND" });
    expect(await mesh.count("SELECT COUNT(*) AS n FROM channels WHERE emptied_at IS NOT NULL")).toBeGreaterThanOrEqual(2);
  });

  test("a channel left empty before channels could end is ended by the next membership change", async () => {
    await act("lead", { kind: "create", channel: "legacy-room" });
    // What an older version left: the member row gone, the channel not marked.
    await mesh.target.sql("DELETE FROM channel_members WHERE channel = 'legacy-room'");
    await act("dev", { kind: "create", channel: "other-room" });
    expect(await failure(act("dev", { kind: "join", channel: "legacy-room" }))).toMatchObject({ code: "NOT_FOUND" });
  });
});
