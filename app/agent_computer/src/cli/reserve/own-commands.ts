import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { release, renew } from "../../domain/reservations/own.ts";
import type { ReservationView } from "../../domain/reservations/reservation-view.ts";
import { type CommandDef, type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { ENV, line, repoSchema, repositoryOf, reservationIdSchema, ttlSchema, VIEW } from "./reserve-flags.ts";

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
