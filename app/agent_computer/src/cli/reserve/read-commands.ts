import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import type { Conflict } from "../../domain/reservations/conflicts.ts";
import { normalisePattern } from "../../domain/reservations/patterns.ts";
import { checkPatterns, listReservations } from "../../domain/reservations/read.ts";
import type { ReservationView } from "../../domain/reservations/reservation-view.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type CommandDef, defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";
import {
  CONFLICT_VIEW,
  conflictLine,
  line,
  PATH_FLAG,
  pathsSchema,
  READ_ENV,
  repoSchema,
  repositoryOf,
  VIEW,
} from "./reserve-flags.ts";

const listSchema = z.object({
  repo: repoSchema,
  holder: z.optional(agentIdSchema).check(z.describe("only this agent's")),
  limit: z
    ._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(500)), 50)
    .check(z.describe("at most this many, oldest first")),
});
type ListResult = { repo: string; reservations: ReservationView[]; more: boolean };
export const listCommand: CommandDef = defineCommand({
  name: "agent-reserve-cli list",
  summary: "the repository's live reservations, oldest first",
  description: "Reads only; no token needed. more: true when --limit cut the list.",
  schema: listSchema,
  writes: "nothing.",
  output: `{"repo","reservations":[${VIEW}…],"more"}`,
  errors: ["INVALID_INPUT", "UNSUPPORTED", ...STORE_ERRORS, "INTERNAL"],
  env: READ_ENV,
  examples: ["agent-reserve-cli list --holder builder-1 --json"],
  needs: { deps: "store" },
  run: async (o, deps) =>
    listReservations(deps, { repoKey: (await repositoryOf(deps, o.repo)).key, holder: o.holder, limit: o.limit }),
  render: (r: ListResult) =>
    [
      `${neutralizeLine(r.repo)}: ${r.reservations.length} live reservation(s)${r.more ? " (more: raise --limit)" : ""}`,
      ...r.reservations.map(line),
    ].join("\n"),
});

const checkSchema = z.object({
  path: pathsSchema,
  agentId: z.optional(agentIdSchema).check(z.describe("whose reservations to leave out (default: AGENT_COMPUTER_AGENT_ID)")),
  shared: z.optional(z.boolean()).check(z.describe("check as a shared reservation would: only exclusive ones conflict")),
  repo: repoSchema,
});
type CheckResult = { repo: string; clear: boolean; conflicts: Conflict[]; more: number };
export const checkCommand: CommandDef = defineCommand({
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
