import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { listReservations } from "../../domain/reservations/read.ts";
import type { ReservationView } from "../../domain/reservations/reservation-view.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, limitSchema, type Paged } from "../kernel/paging.ts";
import { line, READ_ENV, repoSchema, repositoryOf, VIEW } from "./reserve-flags.ts";

const listSchema = z.object({
  repo: repoSchema,
  holder: z.optional(agentIdSchema).check(z.describe("only this agent's")),
  limit: limitSchema(50, 500, "reservations, oldest first,"),
  cursor: cursorSchema,
});
type ListResult = { repo: string; reservations: ReservationView[]; more: boolean } & Paged;
const NAME = "agent-reserve-cli list";

export default defineCommand({
  name: "agent-reserve-cli list",
  summary: "the repository's live reservations, oldest first",
  description:
    "Reads only; no token needed. A page holds at most --limit reservations, oldest first; the last line then says " +
    "how many more there are and the exact command for the next page (--json: more, next_cursor).",
  schema: listSchema,
  writes: "nothing.",
  output: `{"repo","reservations":[${VIEW}…],"more","next_cursor","not_shown"}`,
  errors: ["INVALID_INPUT", "UNSUPPORTED", ...STORE_ERRORS, "INTERNAL"],
  env: READ_ENV,
  examples: ["agent-reserve-cli list --holder builder-1 --json"],
  needs: { deps: "store" },
  run: async (o, deps): Promise<ListResult> => {
    // A read: the repository is found first, so a cursor stays with the repository it was printed for.
    const repoKey = (await repositoryOf(deps, o.repo)).key;
    const query = { repoKey, holder: o.holder ?? null };
    const at = o.cursor ? decodeCursor(NAME, query, o.cursor, ["number", "string"]) : undefined;
    const after = at ? { createdAt: at[0] as number, id: at[1] as string } : undefined;
    const r = await listReservations(deps, { repoKey, holder: o.holder, limit: o.limit, after });
    return fitPage(r.reservations, (shown) => {
      const cut = r.reservations.length - shown.length;
      const last = shown.at(-1);
      const more = cut > 0 || r.more;
      return {
        repo: r.repo,
        reservations: [...shown],
        more,
        next_cursor: more && last ? encodeCursor(NAME, query, [Date.parse(last.created_at), last.id]) : null,
        not_shown: r.following + cut,
      };
    });
  },
  render: (r: ListResult) =>
    [
      `${neutralizeLine(r.repo)}: ${r.reservations.length} live reservation(s)${r.more ? " shown" : ""}`,
      ...r.reservations.map(line),
    ].join("\n"),
});
