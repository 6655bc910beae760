// What the agent-channel-cli subcommands share: the channel name, the run wrapper that authenticates and acts, the
// channel's one-line view and the create/join/leave command shape.
import * as z from "zod/mini";
import { agentIdSchema, notAToken } from "../../domain/identity/names.ts";
import { type ChannelAction, type ChannelResult, type ChannelView, channelAction } from "../../domain/mesh/channels.ts";
import type { ErrorCode } from "../../errors.ts";
import { type CommandDef, type DepsOf, defineCommand } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/command-context.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";

export const ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"];
export const CHANNEL_VIEW = '{"name","created_by","created_at","member_count","members":[first 20 by name]}';

export const channelName = z
  .string()
  .check(
    z.regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, "must be 1-64 of a-z 0-9 _ . - starting with a letter or digit"),
    notAToken(),
    z.describe("the channel's name"),
  );

type Authenticated = { agentId: string; tokenFile?: string | undefined };

export const runWith =
  <O extends Authenticated>(toAction: (options: O, ctx: CommandContext) => Promise<ChannelAction> | ChannelAction) =>
  async (options: O, { ctx, ...deps }: DepsOf<"store">): Promise<ChannelResult> => {
    const action = await toAction(options, ctx);
    const token = deps.credential?.token;
    return channelAction(deps, { agentId: options.agentId, token, action });
  };

/** "a, b, c" and, when the channel has more members than its view names, how many more. */
export const memberList = (c: ChannelView): string => {
  const more = c.member_count - c.members.length;
  return `${c.members.join(", ") || "(none)"}${more > 0 ? ` and ${more} more` : ""}`;
};

const renderMembership = (r: ChannelResult): string => {
  const c = r.channel;
  if (!c) return "";
  const line = `#${c.name}${r.changed === false ? " (unchanged)" : ""}: ${c.member_count} member(s): ${memberList(c)}`;
  return r.note ? `${line}\n  ${r.note}` : line;
};

const membershipSchema = z.object({ agentId: agentIdSchema, channel: channelName, tokenFile: tokenFileSchema });
type MembershipOptions = z.output<typeof membershipSchema>;

export const membershipCommand = (
  kind: "create" | "join" | "leave",
  summary: string,
  description: string,
  errors: ErrorCode[],
): CommandDef =>
  defineCommand({
    name: `agent-channel-cli ${kind}`,
    summary,
    description,
    schema: membershipSchema,
    writes:
      kind === "create" ? "the channel and your membership." : `your membership (${kind === "join" ? "added" : "removed"}).`,
    output: `{"agent_id","changed","channel":${CHANNEL_VIEW},"note"?(leave: the channel ended)}`,
    errors: authenticatedErrorsWith(...errors),
    env: ENV,
    examples: [`agent-channel-cli ${kind} --agent-id builder-1 --channel release`],
    needs: { deps: "store", credential: ownCredential },
    run: runWith<MembershipOptions>((o) => ({ kind, channel: o.channel })),
    render: renderMembership,
  });
