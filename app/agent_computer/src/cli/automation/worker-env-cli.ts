// worker-env-cli set|list|unset: the owner's WorkerEnv, handed to every attempt of the owner's jobs.

import * as z from "zod/mini";
import {
  ENV_KEY,
  listWorkerEnv,
  MAX_ENTRIES,
  MAX_VALUE_BYTES,
  parseEnvLines,
  setWorkerEnv,
  unsetWorkerEnv,
} from "../../domain/automation/worker-env.ts";
import { STORE_ERRORS } from "../../errors.ts";
import type { BinaryDef } from "../kernel/command.ts";
import { defineCommand } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/command-context.ts";
import { ownCredential } from "../kernel/credential.ts";
import { readFlagInput } from "../kernel/input.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields } from "./shared.ts";

const TRUST =
  "Values are stored in the store (an attempt needs the value itself): whoever can read the store can read them. They " +
  "are never printed again: listings show the key, the value's length and when it was set.";

export const setOptionsSchema = z.object({
  ...ownerFields,
  file: z
    .string()
    .check(
      z.minLength(1),
      z.describe("KEY=VALUE lines from this file, or - for stdin (values never go in argv: ps and shell history show argv)"),
    ),
});

/** The most a file of MAX_ENTRIES variables at their largest can hold, with room for keys and line ends. */
const MAX_FILE_BYTES = MAX_ENTRIES * (MAX_VALUE_BYTES + 256);

const readLines = (file: string, ctx: CommandContext): Promise<string> => readFlagInput(ctx, "--file", file, MAX_FILE_BYTES);

export const setCommand = defineCommand({
  name: "worker-env-cli set",
  summary: "set variables (KEY=VALUE lines from a file or stdin) for every attempt of your jobs",
  description:
    "Reads KEY=VALUE lines (blank lines and # comments skipped; the value is everything after the first =, taken " +
    "literally: no quotes, no interpolation, one line) and sets each for your jobs' attempts, replacing earlier values. " +
    "Every attempt reads the latest values when it starts. Keys the worker sets itself (PATH, HOME, TMPDIR, " +
    "AGENT_COMPUTER_*, MCPORTER_*, BUN_*, XDG_*, NODE_PATH, NODE_OPTIONS) are refused. At most 200 variables, 32 KiB each. " +
    `Secrets for MCP servers: refer to them as \${KEY} in a Skill's mcp.json. ${TRUST}`,
  schema: setOptionsSchema,
  flags: { file: { placeholder: "<path|->" } },
  writes: "the given variables of your WorkerEnv (insert or replace).",
  output: '{"agent_id","set":["KEY"],"count"}',
  errors: [...OWNER_ERRORS, ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: [
    "printf 'GITHUB_TOKEN=%s\\n' \"$(cat ~/.gh-token)\" | worker-env-cli set --agent-id builder-1 --file -",
    "worker-env-cli set --agent-id builder-1 --file ./job.env --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: async (options, deps) => {
    const entries = parseEnvLines(await readLines(options.file, deps.ctx));
    return setWorkerEnv(deps, { ...owner(options, deps), entries });
  },
  render: (r: { agent_id: string; set: string[]; count: number }) =>
    `${r.agent_id}: set ${r.set.join(", ")} (${r.count} variable(s) in total)`,
});

export const listCommand = defineCommand({
  name: "worker-env-cli list",
  summary: "list your WorkerEnv keys (values masked)",
  description: `Lists the variables your jobs' attempts receive. ${TRUST}`,
  schema: z.object({ ...ownerFields }),
  writes: "nothing.",
  output: '{"agent_id","variables":[{"key","value":"********","length","updated_at"}]}',
  errors: [...OWNER_ERRORS, ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: ["worker-env-cli list --agent-id builder-1"],
  needs: { deps: "store", credential: ownCredential },
  run: async (options, deps) => listWorkerEnv(deps, owner(options, deps)),
  render: (r: { agent_id: string; variables: { key: string; value: string; length: number; updated_at: string }[] }) =>
    [
      `${r.agent_id}: ${r.variables.length} variable(s)`,
      ...r.variables.map((v) => `  ${v.key}=${v.value} (${v.length} chars, set ${v.updated_at})`),
    ].join("\n"),
});

export const unsetCommand = defineCommand({
  name: "worker-env-cli unset",
  summary: "remove variables from your WorkerEnv",
  description: "Removes the named variables; names that were not set are reported in not_set (not an error).",
  schema: z.object({
    ...ownerFields,
    key: z
      .array(z.string().check(z.regex(ENV_KEY, "must be a variable name")))
      .check(z.minLength(1), z.maxLength(200), z.describe("variable names to remove")),
  }),
  writes: "removes the named variables of your WorkerEnv.",
  output: '{"agent_id","removed":["KEY"],"not_set":["KEY"]}',
  errors: [...OWNER_ERRORS, ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: ["worker-env-cli unset --agent-id builder-1 --key GITHUB_TOKEN"],
  needs: { deps: "store", credential: ownCredential },
  run: async (options, deps) => unsetWorkerEnv(deps, { ...owner(options, deps), keys: options.key }),
  render: (r: { agent_id: string; removed: string[]; not_set: string[] }) =>
    `${r.agent_id}: removed ${r.removed.join(", ") || "nothing"}${r.not_set.length ? `; not set: ${r.not_set.join(", ")}` : ""}`,
});

export const workerEnvBinary: BinaryDef = {
  name: "worker-env-cli",
  summary: "the environment variables your automation jobs' attempts receive (WorkerEnv); values never printed",
  description:
    "Each attempt of your automation jobs starts with an environment built from scratch plus your WorkerEnv, read fresh " +
    `at every attempt, so a change applies to the next attempt without re-registering anything. ${TRUST} ` +
    "Jobs: create-automation-job-cli --help.",
  subcommands: {
    set: async () => setCommand,
    list: async () => listCommand,
    unset: async () => unsetCommand,
  },
  env: [...OWNER_ENV],
  examples: [
    "echo 'SLACK_WEBHOOK=https://hooks.slack.com/services/T0000/B0000/example' | worker-env-cli set --agent-id builder-1 --file -",
    "worker-env-cli list --agent-id builder-1",
  ],
};
