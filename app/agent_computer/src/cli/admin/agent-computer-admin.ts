import type { BinaryDef } from "../kernel/command.ts";
import { ADMIN_ENV } from "./admin-env.ts";

/** The operator's tool: look after an installation and its store. */
const binary: BinaryDef = {
  name: "agent-computer-admin",
  summary: "operate an installation: doctor, backup and restore the store, export an agent's mail, prune old rows",
  description:
    "For the person who runs agent-computer, not for agents. doctor checks this host and the store and says how to " +
    "fix what is wrong; backup and restore copy the whole store (SQLite or PostgreSQL); export writes one agent's own " +
    "mail to a file, with that agent's token; prune deletes what nothing waits on any more past a number of days, " +
    "which the worker also does by itself (AGENT_COMPUTER_RETENTION_DAYS, default 30). Each subcommand's --help is " +
    "its contract.",
  subcommands: {
    doctor: () => import("./doctor.ts").then((m) => m.default),
    backup: () => import("./backup.ts").then((m) => m.default),
    restore: () => import("./restore.ts").then((m) => m.default),
    export: () => import("./export.ts").then((m) => m.default),
    prune: () => import("./prune.ts").then((m) => m.default),
  },
  env: ADMIN_ENV,
  examples: [
    "agent-computer-admin doctor",
    'agent-computer-admin backup --to "agent-computer-$(date +%F).sqlite"',
    "agent-computer-admin prune --older-than 30",
  ],
};

export default binary;
