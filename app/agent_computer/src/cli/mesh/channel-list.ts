import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import type { ChannelResult, ChannelView } from "../../domain/mesh/channels.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, limitSchema, type Paged } from "../kernel/paging.ts";
import { CHANNEL_VIEW, ENV, memberList, runWith } from "./channel-shared.ts";

const NAME = "agent-channel-cli list";

const listSchema = z.object({
  agentId: agentIdSchema,
  all: z._default(z.boolean(), false).check(z.describe("every channel, not only yours")),
  limit: limitSchema(25, 200, "channels"),
  cursor: cursorSchema,
  tokenFile: tokenFileSchema,
});
type ListOptions = z.output<typeof listSchema>;
type ListOutput = { agent_id: string; channels: ChannelView[]; warning?: string } & Paged;

const runList = async (options: ListOptions, deps: DepsOf<"store">): Promise<ListOutput> => {
  const query = { all: options.all };
  // Checked before the presence renewal is written.
  const after = options.cursor ? (decodeCursor(NAME, query, options.cursor, ["string"])[0] as string) : undefined;
  const r: ChannelResult = await runWith<ListOptions>((o) => ({ kind: "list", all: o.all, after, limit: o.limit }))(
    options,
    deps,
  );
  const channels = r.channels ?? [];
  const following = r.channels_following ?? 0;
  return fitPage(channels, (shown) => {
    const cut = channels.length - shown.length;
    const last = shown.at(-1)?.name;
    return {
      agent_id: r.agent_id,
      channels: [...shown],
      next_cursor: (cut > 0 || following > 0) && last !== undefined ? encodeCursor(NAME, query, [last]) : null,
      not_shown: following + cut,
      ...(r.warning ? { warning: r.warning } : {}),
    };
  });
};

export default defineCommand({
  name: NAME,
  summary: "the channels you belong to (or all of them), by name, paged, with their member counts",
  description:
    "Changes nothing but your presence renewal. Each channel names its first 20 members by name and counts them all " +
    "(member_count). A page holds at most --limit channels; the last line then says how many more there are and the " +
    "exact command for the next page (--json: next_cursor).",
  schema: listSchema,
  writes: "only your presence renewal.",
  output: `{"agent_id","channels":[${CHANNEL_VIEW}],"next_cursor","not_shown","warning"?}`,
  errors: AUTHENTICATED_ERRORS,
  env: ENV,
  examples: [
    "agent-channel-cli list --agent-id builder-1 --all",
    "agent-channel-cli list --agent-id builder-1 --all --limit 100 --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runList,
  render: (r: ListOutput) =>
    r.channels.length === 0
      ? `${r.agent_id}: no channels`
      : r.channels.map((c) => `#${c.name} (${c.member_count} member(s)): ${memberList(c)}`).join("\n"),
});
