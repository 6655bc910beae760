import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { normalisePattern } from "../../domain/reservations/patterns.ts";
import { findRepository } from "../../domain/reservations/repository.ts";
import {
  type Conflict,
  checkPatterns,
  DEFAULT_TTL_S,
  listReservations,
  MAX_PATTERNS,
  MAX_TTL_S,
  type ReservationView,
  release,
  renew,
  reserve,
} from "../../domain/reservations/reserve.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type CommandDef, type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";

const ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"];
const READ_ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL"];
const VIEW = '{"id","repo","holder","patterns":[…],"exclusive","reason","created_at","expires_at"}';
const CONFLICT_VIEW = '{"holder","id","patterns":[…],"exclusive","expires_at"}';

const repoSchema = z
  .optional(z.string().check(z.minLength(1), z.maxLength(4096)))
  .check(z.describe("a directory inside the repository (default: the current directory)"));
const pathsSchema = z
  .array(z.string())
  .check(z.minLength(1), z.maxLength(MAX_PATTERNS), z.describe("a pattern relative to the repository root (repeatable)"));
const ttlSchema = z
  ._default(z.coerce.number().check(z.int(), z.minimum(10), z.maximum(MAX_TTL_S)), DEFAULT_TTL_S)
  .check(z.describe(`seconds it lasts from now (10 to ${MAX_TTL_S})`));
const reservationIdSchema = z
  .optional(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(100)))
  .check(z.describe("which of your reservations (repeatable; default: all of yours in the repository)"));
const PATH_FLAG = { path: { placeholder: "<pattern>", commaList: false as const } };

const repositoryOf = (deps: DepsOf<"store">, repo: string | undefined) =>
  findRepository(repo ?? process.cwd(), deps.host, deps.ctx.env);

const line = (r: ReservationView): string =>
  `${r.id} ${neutralizeLine(r.holder)} ${r.exclusive ? "exclusive" : "shared"} until ${r.expires_at}: ` +
  `${r.patterns.map((p) => neutralizeLine(p)).join(", ")}${r.reason ? ` (${neutralizeLine(r.reason)})` : ""}`;

const conflictLine = (c: Conflict): string =>
  `${neutralizeLine(c.holder)} holds ${c.patterns.map((p) => neutralizeLine(p)).join(", ")} (${c.exclusive ? "exclusive" : "shared"}) until ${c.expires_at}`;

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
export const reserveCommand: CommandDef = defineCommand({
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

const ownSchema = z.object({
  agentId: agentIdSchema,
  reservationId: reservationIdSchema,
  repo: repoSchema,
  tokenFile: tokenFileSchema,
});
const ownInput = async (o: z.output<typeof ownSchema>, deps: DepsOf<"store">) => ({
  agentId: o.agentId,
  token: deps.credential?.token,
  ids: o.reservationId,
  repoKey: o.reservationId ? undefined : (await repositoryOf(deps, o.repo)).key,
});

const renewSchema = z.extend(ownSchema, { ttl: ttlSchema });
export const renewCommand: CommandDef = defineCommand({
  name: "agent-reserve-cli renew",
  summary: "extend your live reservations to now + --ttl",
  description: "An expired or released reservation is not revived (NOT_FOUND): reserve again, which checks for conflicts.",
  schema: renewSchema,
  writes: "the expiry of your reservations.",
  output: `{"renewed":[${VIEW}…]}`,
  errors: authenticatedErrorsWith("NOT_FOUND", "UNSUPPORTED"),
  env: ENV,
  examples: ["agent-reserve-cli renew --agent-id builder-1 --ttl 3600"],
  needs: { deps: "store", credential: ownCredential },
  run: async (o, deps) => renew(deps, { ...(await ownInput(o, deps)), ttlS: o.ttl }),
  render: (r: { renewed: ReservationView[] }) =>
    r.renewed.length === 0 ? "nothing to renew" : r.renewed.map((v) => `renewed ${line(v)}`).join("\n"),
});

export const releaseCommand: CommandDef = defineCommand({
  name: "agent-reserve-cli release",
  summary: "end your reservations now",
  description: "They stop counting at once, for reserve, check and the git guard.",
  schema: ownSchema,
  writes: "the release time of your reservations.",
  output: '{"released":[id…]}',
  errors: authenticatedErrorsWith("NOT_FOUND", "UNSUPPORTED"),
  env: ENV,
  examples: [
    "agent-reserve-cli release --agent-id builder-1",
    "agent-reserve-cli release --agent-id builder-1 --reservation-id rsv_0193a1b2c3d4e5f60718293a4b5c6d7e",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: async (o, deps) => release(deps, await ownInput(o, deps)),
  render: (r: { released: string[] }) => (r.released.length === 0 ? "nothing to release" : `released ${r.released.join(", ")}`),
});

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
