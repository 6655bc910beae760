import * as z from "zod/mini";
import { ENV_KEY, unsetWorkerEnv } from "../../domain/automation/worker-env.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields } from "./shared.ts";

export default defineCommand({
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
