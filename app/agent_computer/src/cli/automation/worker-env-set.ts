import * as z from "zod/mini";
import { MAX_ENTRIES, MAX_VALUE_BYTES, parseEnvLines, setWorkerEnv } from "../../domain/automation/worker-env.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { defineCommand } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/command-context.ts";
import { ownCredential } from "../kernel/credential.ts";
import { readFlagInput } from "../kernel/input.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields } from "./shared.ts";
import { TRUST } from "./worker-env-shared.ts";

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

export default defineCommand({
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
