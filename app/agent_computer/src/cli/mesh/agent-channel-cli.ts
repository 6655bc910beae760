import type { BinaryDef } from "../kernel/command.ts";

/** Named channels: rooms agents join, post to and read. */
const binary: BinaryDef = {
  name: "agent-channel-cli",
  summary: "named Agent Mesh channels: create, join, leave, list, post to and read them",
  description:
    "A channel is a named room. Its members receive every post in their ordinary inbox, with the channel named " +
    '(agent-inbox-cli shows `in #<channel>`; --json has "channel"), and acknowledge it like any message. Only members ' +
    "post and read a channel's history (NOT_A_MEMBER otherwise). Membership belongs to the agent name, so it survives " +
    "re-check-in; a member that is not checked in when a post is made never gets that post in its inbox (the mesh's " +
    "rule for all mail) but can read it in the history. A member's contact policy (agent-contacts-cli) holds on posts " +
    "as on direct mail: a post reaches no member that refuses its poster (that member can still read it in the " +
    "history), and every post counts against its poster's rate limits (agent-channel-cli post --help). Every " +
    "subcommand is authenticated as --agent-id and renews presence.",
  subcommands: {
    create: () => import("./channel-create.ts").then((m) => m.default),
    join: () => import("./channel-join.ts").then((m) => m.default),
    leave: () => import("./channel-leave.ts").then((m) => m.default),
    list: () => import("./channel-list.ts").then((m) => m.default),
    post: () => import("./channel-post.ts").then((m) => m.default),
    read: () => import("./channel-read.ts").then((m) => m.default),
  },
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: [
    "agent-channel-cli create --agent-id builder-1 --channel release",
    "agent-channel-cli post --agent-id builder-1 --channel release --body 'v1.2 tagged'",
    "agent-channel-cli read --agent-id builder-1 --channel release --json",
  ],
};

export default binary;
