import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import type { Conflict } from "../../domain/reservations/conflicts.ts";
import { normalisePattern } from "../../domain/reservations/patterns.ts";
import { checkPatterns } from "../../domain/reservations/read.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { defineCommand } from "../kernel/command.ts";
import { CONFLICT_VIEW, conflictLine, PATH_FLAG, pathsSchema, READ_ENV, repoSchema, repositoryOf } from "./reserve-flags.ts";

const checkSchema = z.object({
  path: pathsSchema,
  agentId: z.optional(agentIdSchema).check(z.describe("whose reservations to leave out (default: AGENT_COMPUTER_AGENT_ID)")),
  shared: z.optional(z.boolean()).check(z.describe("check as a shared reservation would: only exclusive ones conflict")),
  repo: repoSchema,
});
type CheckResult = { repo: string; clear: boolean; conflicts: Conflict[]; more: number };
export default defineCommand({
  name: "agent-reserve-cli check",
  summary: "would these paths or patterns conflict, and with whom",
  description:
    "Reads only; exits 0 either way: clear says whether reserve would grant them now. Lists at most 50 conflicts " +
    "(more: how many were left out).",
  schema: checkSchema,
  flags: PATH_FLAG,
  writes: "nothing.",
  output: `{"repo","clear","conflicts":[${CONFLICT_VIEW}…],"more"}`,
  errors: ["INVALID_INPUT", "UNSUPPORTED", ...STORE_ERRORS, "INTERNAL"],
  env: [...READ_ENV, "AGENT_COMPUTER_AGENT_ID"],
  examples: ["agent-reserve-cli check --path src/api/routes.ts --path 'docs/**'"],
  needs: { deps: "store" },
  run: async (o, deps) =>
    checkPatterns(deps, {
      repoKey: (await repositoryOf(deps, o.repo)).key,
      agentId: o.agentId ?? (deps.ctx.env.AGENT_COMPUTER_AGENT_ID || undefined),
      patterns: [...new Set(o.path.map((p) => normalisePattern(p)))],
      exclusive: o.shared !== true,
    }),
  render: (r: CheckResult) =>
    r.clear
      ? "clear: no other agent's reservation overlaps"
      : ["not clear:", ...r.conflicts.map(conflictLine), ...(r.more ? [`and ${r.more} more`] : [])].join("\n"),
});
