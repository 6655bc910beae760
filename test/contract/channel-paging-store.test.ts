// agent-channel-cli list and read page on every store: channels by name and posts backwards in time, each exactly once
// while channels are created and posts are made between two pages; a big channel names its first members and
// counts them all. Runs the subcommands' own run() in process over a real store.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as z from "zod/mini";
import channelList from "../../app/agent_computer/src/cli/mesh/channel-list.ts";
import channelRead from "../../app/agent_computer/src/cli/mesh/channel-read.ts";
import { type ChannelAction, channelAction, MEMBERS_SHOWN } from "../../app/agent_computer/src/domain/mesh/channels.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

interface Page {
  next_cursor: string | null;
  not_shown: number;
  channels?: { name: string; member_count: number; members: string[] }[];
  posts?: { body: string }[];
}

describe.each(storeNames)("channel paging [%s]", (storeName) => {
  let mesh: MeshAgents;
  const act = (agentId: string, action: ChannelAction) => {
    mesh.clock.advance(10);
    return channelAction(mesh.deps(), { agentId, token: mesh.token(agentId), action });
  };
  const run = async (command: typeof channelList, flags: Record<string, unknown>) =>
    (await command.run(z.parse(command.schema as z.ZodMiniType, { agentId: "lead", ...flags }), {
      ...mesh.deps(),
      ctx: undefined,
      credential: { token: mesh.token("lead") },
    } as never)) as Page;

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    await mesh.join("lead");
    for (let i = 0; i < 25; i++) await mesh.join(`member-${String(i).padStart(2, "0")}`);
    for (let i = 0; i < 9; i++) await act("lead", { kind: "create", channel: `room-${i}` });
    for (let i = 0; i < 25; i++) await act(`member-${String(i).padStart(2, "0")}`, { kind: "join", channel: "room-0" });
  });
  afterAll(async () => mesh?.close());

  test("list: every channel once across pages while channels are created between them; a big one counted, not listed", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await run(channelList, { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...(page.channels ?? []).map((c) => c.name));
      if (page.next_cursor) expect(page.not_shown).toBe(9 - seen.length);
      cursor = page.next_cursor ?? undefined;
      // A channel whose name sorts before the cursor joins the list between pages: no later page shows it.
      if (++pages === 2) await act("lead", { kind: "create", channel: "a-late-room" });
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 9 }, (_, i) => `room-${i}`));
    const big = (await run(channelList, { limit: 1, cursor: undefined })).channels?.[0];
    expect(big).toMatchObject({ name: "a-late-room" });
    const room0 = (await run(channelList, { limit: 2 })).channels?.find((c) => c.name === "room-0");
    expect(room0?.member_count).toBe(26);
    expect(room0?.members).toHaveLength(MEMBERS_SHOWN);
  });

  test("read: older posts page by page, newest page first, none repeated while new posts arrive", async () => {
    for (let i = 0; i < 7; i++) await act("lead", { kind: "post", channel: "room-1", body: `post ${i}` });
    const first = await run(channelRead, { channel: "room-1", limit: 3 });
    expect(first.posts?.map((p) => p.body)).toEqual(["post 4", "post 5", "post 6"]);
    expect(first.not_shown).toBe(4);
    await act("lead", { kind: "post", channel: "room-1", body: "post 7" });
    const second = await run(channelRead, { channel: "room-1", limit: 3, cursor: first.next_cursor });
    expect(second.posts?.map((p) => p.body)).toEqual(["post 1", "post 2", "post 3"]);
    const third = await run(channelRead, { channel: "room-1", limit: 3, cursor: second.next_cursor });
    expect(third.posts?.map((p) => p.body)).toEqual(["post 0"]);
    expect(third.next_cursor).toBeNull();
    await expect(run(channelRead, { channel: "room-2", limit: 3, cursor: first.next_cursor })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/^--cursor: /),
    });
  });
});
