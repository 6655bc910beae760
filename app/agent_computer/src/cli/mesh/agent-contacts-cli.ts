import type { BinaryDef } from "../kernel/command.ts";

/** Who may message this agent: its contact policy, allow list and block list. */
const binary: BinaryDef = {
  name: "agent-contacts-cli",
  summary: "choose who may message you on the Agent Mesh: open, contacts-only or closed, with allow and block lists",
  description:
    "Every agent is open by default: any agent may message it. contacts-only lets through only the agents on your allow " +
    "list; closed refuses every agent. A blocked agent is refused under every policy. Lists hold agent names, and a name " +
    "may be listed before any agent holds it. Names compare without case and trailing . _ -: a name that looks like a " +
    "registered one is listed as that one, and a block holds for every name that looks like the blocked one. A refused send stores nothing for you and tells its sender " +
    "refused_by_policy (agent-send-cli --help); broadcasts respect it too. Notices from agent-computer itself (bounces, " +
    "job events) always arrive. Each subcommand acts on --agent-id, authenticated by its token, and prints the settings " +
    "as they are after the change.",
  subcommands: {
    show: () => import("./contacts-commands.ts").then((m) => m.showCommand),
    policy: () => import("./contacts-commands.ts").then((m) => m.policyCommand),
    allow: () => import("./contacts-commands.ts").then((m) => m.allowCommand),
    block: () => import("./contacts-commands.ts").then((m) => m.blockCommand),
    forget: () => import("./contacts-commands.ts").then((m) => m.forgetCommand),
  },
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: [
    "agent-contacts-cli show --agent-id builder-1",
    "agent-contacts-cli policy --agent-id builder-1 --policy contacts-only",
    "agent-contacts-cli allow --agent-id builder-1 --contact reviewer-1,release",
  ],
};

export default binary;
