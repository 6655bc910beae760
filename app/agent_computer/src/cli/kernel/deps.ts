// The composition root of the one-shot commands: the deps every domain call gets, built from the context.
import { hostName, localHostId, probePid } from "../../adapters/local-host.ts";
import type { Deps } from "../../domain/deps.ts";
import { rateLimitsFromEnv } from "../../domain/identity/rate-config.ts";
import { newId } from "../../domain/ids.ts";
import type { CommandContext } from "./context.ts";

export const meshDeps = async (ctx: CommandContext): Promise<Deps> => {
  const [store, host, hostId] = await Promise.all([ctx.store(), hostName(), localHostId(ctx.env)]);
  return { store, now: ctx.now(), host, newId, local: { hostId, probe: probePid }, limits: rateLimitsFromEnv(ctx.env) };
};
