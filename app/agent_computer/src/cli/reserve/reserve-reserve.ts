import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { normalisePattern } from "../../domain/reservations/patterns.ts";
import type { ReservationView } from "../../domain/reservations/reservation-view.ts";
import { reserve } from "../../domain/reservations/reserve.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { ENV, line, PATH_FLAG, pathsSchema, repoSchema, repositoryOf, ttlSchema, VIEW } from "./reserve-flags.ts";

const reserveSchema = z.object({
  agentId: agentIdSchema,
  path: pathsSchema,
  shared: z.optional(z.boolean()).check(z.describe("share the paths with other shared reservations (default: exclusive)")),
  ttl: ttlSchema,
  reason: z
    ._default(z.string().check(z.maxLength(500)), "")
    .check(z.describe("why, shown to other agents (up to 500 characters)")),
  repo: repoSchema,
  tokenFile: tokenFileSchema,
});
export default defineCommand({
  name: "agent-reserve-cli reserve",
  summary: "lease path patterns of the repository, exclusive or shared, for a while",
  description:
    "Grants all the patterns or none: an overlap with another agent's live reservation (exclusive on either side) is " +
    "refused with CONFLICT naming each holder, its patterns and its expiry (details in error.conflicts with --json). " +
    "Your own reservations never conflict with each other.",
  schema: reserveSchema,
  flags: PATH_FLAG,
  writes: "one reservation.",
  output: VIEW,
  errors: authenticatedErrorsWith("CONFLICT", "UNSUPPORTED"),
  env: ENV,
  examples: ["agent-reserve-cli reserve --agent-id builder-1 --path 'src/api/**' --ttl 1800 --reason 'ticket 7'"],
  needs: { deps: "store", credential: ownCredential },
  run: async (o, deps) => {
    const patterns = [...new Set(o.path.map((p) => normalisePattern(p)))];
    const repo = await repositoryOf(deps, o.repo);
    return reserve(deps, {
      agentId: o.agentId,
      token: deps.credential?.token,
      repoKey: repo.key,
      patterns,
      exclusive: o.shared !== true,
      ttlS: o.ttl,
      reason: o.reason,
    });
  },
  render: (r: ReservationView) => `reserved ${line(r)}`,
});
