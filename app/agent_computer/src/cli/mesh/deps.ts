import { hostName, localHostId, probePid } from "../../adapters/local-host.ts";
import { rateLimitsFromEnv } from "../../domain/identity/rate-config.ts";
import type { MeshDeps } from "../../domain/mesh/deps.ts";
import type { CommandContext } from "../kernel/context.ts";

export const newId = (prefix: string): string => `${prefix}_${Bun.randomUUIDv7().replaceAll("-", "")}`;

export const meshDeps = async (ctx: CommandContext): Promise<MeshDeps> => ({
  store: await ctx.store(),
  now: ctx.now(),
  host: hostName(),
  newId,
  local: { hostId: localHostId(ctx.env), probe: probePid },
  limits: rateLimitsFromEnv(ctx.env),
});
