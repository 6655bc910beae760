import * as z from "zod/mini";
import { listWorkerEnv } from "../../domain/automation/worker-env.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields } from "./shared.ts";
import { TRUST } from "./worker-env-shared.ts";

export default defineCommand({
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
