import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { listReservations } from "../../domain/reservations/read.ts";
import type { ReservationView } from "../../domain/reservations/reservation-view.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { line, READ_ENV, repoSchema, repositoryOf, VIEW } from "./reserve-flags.ts";

const listSchema = z.object({
  repo: repoSchema,
  holder: z.optional(agentIdSchema).check(z.describe("only this agent's")),
  limit: z
    ._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(500)), 50)
    .check(z.describe("at most this many, oldest first")),
});
type ListResult = { repo: string; reservations: ReservationView[]; more: boolean };
export default defineCommand({
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
