import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import type { ChannelResult } from "../../domain/mesh/channels.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { MESSAGE_RATE_ENV, RATE_RULE, REACH_RULE } from "../kernel/reach-help.ts";
import { CHANNEL_VIEW, channelName, ENV, runWith } from "./channel-shared.ts";
import { bodySchemas, readBody } from "./send-body.ts";

const postSchema = z.object({ agentId: agentIdSchema, channel: channelName, ...bodySchemas, tokenFile: tokenFileSchema }).check(
  z.superRefine((o, ctx) => {
    if ((o.body === undefined) === (o.bodyFile === undefined))
      ctx.addIssue({ code: "custom", path: ["body"], message: "give exactly one of --body or --body-file" });
  }),
);

/** "a, b and 3 more" from the first names of an outcome and its count. */
const outcome = (names: string[], count: number): string =>
  `${names.join(", ")}${count > names.length ? ` and ${count - names.length} more` : ""}`;

const render = (r: ChannelResult): string => {
  const post = r.post;
  if (!post) return "";
  return (
    `posted ${post.id} to #${r.channel?.name}: delivered to ${post.counts.delivered === 0 ? "nobody" : outcome(post.delivered_to, post.counts.delivered)}` +
    (post.counts.not_checked_in > 0
      ? `; NOT CHECKED IN (no inbox copy): ${outcome(post.not_checked_in, post.counts.not_checked_in)}`
      : "") +
    (post.counts.refused_by_policy > 0
      ? `; REFUSED BY POLICY (no inbox copy): ${outcome(post.refused_by_policy, post.counts.refused_by_policy)}`
      : "")
  );
};

export default defineCommand({
  name: "agent-channel-cli post",
  summary: "post to a channel you are a member of: every other member gets it in its inbox",
  description:
    "The post is one message with the channel named, delivered to each other member's live session (delivered_to); a " +
    "member that is not checked in gets no inbox copy (not_checked_in) but can read it in the history, and so can a " +
    "member whose contact policy refuses you (refused_by_policy). Each list names its first 20 members; counts has " +
    `them all. Bodies follow agent-send-cli's rules (size limit, no NUL).\n${REACH_RULE}\n${RATE_RULE}`,
  schema: postSchema,
  flags: { bodyFile: { placeholder: "<path|->" } },
  writes: "the post, one delivery per other member that accepts you, and your message and delivery counts.",
  output:
    `{"agent_id","channel":${CHANNEL_VIEW},"post":{"id","created_at","delivered_to":[…],"not_checked_in":[…],` +
    '"refused_by_policy":[…],"counts":{"delivered","not_checked_in","refused_by_policy"}}}',
  errors: authenticatedErrorsWith("NOT_FOUND", "NOT_A_MEMBER", "RATE_LIMITED"),
  env: [...ENV, "AGENT_COMPUTER_HOST_ID", ...MESSAGE_RATE_ENV],
  examples: [
    "agent-channel-cli post --agent-id builder-1 --channel release --body 'freeze lifted'",
    "git log -1 --format=%s | agent-channel-cli post --agent-id builder-1 --channel release --body-file -",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runWith<z.output<typeof postSchema>>(async (o, ctx) => ({
    kind: "post",
    channel: o.channel,
    body: await readBody(o, ctx),
  })),
  render,
});
