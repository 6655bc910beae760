import type { BinaryDef } from "../kernel/command.ts";

/** Who may message this agent: its contact policy, allow list and block list. */
const binary: BinaryDef = {
  name: "agent-contacts-cli",
  summary: "choose who may message you on the Agent Mesh: open, contacts-only or closed, with allow and block lists",
  description:
    "Every agent is open by default: any agent may message it. contacts-only lets through only the agents on your allow " +
    "list; closed refuses every agent. A blocked agent is refused under every policy. Lists hold agent names, and a name " +
    "may be listed before any agent holds it. Names compare without case and trailing . _ -: a name that looks like a " +
    "registered one is listed as that one, and a block holds for every name that looks like the blocked one. The " +
    "settings hold on everything another agent can put in your inbox or " +
    "webhooks: its sends, replies and broadcasts, its channel posts (you can still read them in the channel's history), " +
    "its tasks (never routed to you: agent-task-cli post --help) and the notices of the task steps it takes (its " +
    "result or reason stays on the task, for agent-task-cli list). A refused sender is told refused_by_policy and " +
    "nothing is stored for you. Notices from agent-computer itself about your own affairs (bounces of mail you sent, " +
    "your jobs' runs, your webhooks) always arrive. Each subcommand acts on --agent-id, authenticated by its token, and " +
    "prints the settings as they are after the change.",
  subcommands: {
    show: () => import("./contacts-show.ts").then((m) => m.default),
    policy: () => import("./contacts-policy.ts").then((m) => m.default),
    allow: () => import("./contacts-allow.ts").then((m) => m.default),
    block: () => import("./contacts-block.ts").then((m) => m.default),
    forget: () => import("./contacts-forget.ts").then((m) => m.default),
  },
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: [
    "agent-contacts-cli show --agent-id builder-1",
    "agent-contacts-cli policy --agent-id builder-1 --policy contacts-only",
    "agent-contacts-cli allow --agent-id builder-1 --contact reviewer-1,release",
  ],
};

export default binary;
