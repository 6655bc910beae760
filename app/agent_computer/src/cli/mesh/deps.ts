import { hostName, localHostId, probePid } from "../../adapters/local-host.ts";
import { rateLimitsFromEnv } from "../../domain/identity/rate-config.ts";
import type { MeshDeps } from "../../domain/mesh/deps.ts";
import type { CommandContext } from "../kernel/context.ts";

/** A time-ordered id: the prefix and a UUIDv7's 32 hex digits (hex of its bytes: cheaper than removing dashes). */
export const newId = (prefix: string): string => `${prefix}_${Bun.randomUUIDv7("buffer").toString("hex")}`;

export const meshDeps = async (ctx: CommandContext): Promise<MeshDeps> => {
  const [store, host, hostId] = await Promise.all([ctx.store(), hostName(), localHostId(ctx.env)]);
  return { store, now: ctx.now(), host, newId, local: { hostId, probe: probePid }, limits: rateLimitsFromEnv(ctx.env) };
};
