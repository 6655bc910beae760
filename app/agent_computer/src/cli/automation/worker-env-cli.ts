// worker-env-cli set|list|unset: the owner's WorkerEnv, handed to every attempt of the owner's jobs.
import type { BinaryDef } from "../kernel/command.ts";
import { OWNER_ENV } from "./shared.ts";
import { TRUST } from "./worker-env-shared.ts";

const binary: BinaryDef = {
  name: "worker-env-cli",
  summary: "the environment variables your automation jobs' attempts receive (WorkerEnv); values never printed",
  description:
    "Each attempt of your automation jobs starts with an environment built from scratch plus your WorkerEnv, read fresh " +
    `at every attempt, so a change applies to the next attempt without re-registering anything. ${TRUST} ` +
    "Jobs: create-automation-job-cli --help.",
  subcommands: {
    set: () => import("./worker-env-set.ts").then((m) => m.default),
    list: () => import("./worker-env-list.ts").then((m) => m.default),
    unset: () => import("./worker-env-unset.ts").then((m) => m.default),
  },
  env: [...OWNER_ENV],
  examples: [
    "echo 'SLACK_WEBHOOK=https://hooks.slack.com/services/T0000/B0000/example' | worker-env-cli set --agent-id builder-1 --file -",
    "worker-env-cli list --agent-id builder-1",
  ],
};

export default binary;
