// What renew and release share: your reservations, chosen by id or by repository.
import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import type { DepsOf } from "../kernel/command.ts";
import { tokenFileSchema } from "../kernel/credential.ts";
import { repoSchema, repositoryOf, reservationIdSchema } from "./reserve-flags.ts";

export const ownSchema = z.object({
  agentId: agentIdSchema,
  reservationId: reservationIdSchema,
  repo: repoSchema,
  tokenFile: tokenFileSchema,
});
/** The domain input: the caller, its token, and either the ids given or every one of its reservations in the repository. */
export const ownInput = async (o: z.output<typeof ownSchema>, deps: DepsOf<"store">) => ({
  agentId: o.agentId,
  token: deps.credential?.token,
  ids: o.reservationId,
  repoKey: o.reservationId ? undefined : (await repositoryOf(deps, o.repo)).key,
});
