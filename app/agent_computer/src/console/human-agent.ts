// The person at the console writes as an agent of their own: human-<Unix user>, class human, registered by the
// console's first write and kept in this state directory's token vault like any agent's token (local/vault.ts).
// Every write checks it in again (a session of the longest ttl), so agents' replies reach it while it is in use;
// its mail then goes through the same send and post services as any agent's, under the recipients' policies and
// the rate limits.
import { checkIn } from "../domain/agents/checkin.ts";
import { registerAgent } from "../domain/agents/register.ts";
import type { Deps } from "../domain/deps.ts";
import { TTL_MAX_SECONDS } from "../domain/mesh/ttl.ts";
import { AppError } from "../errors.ts";
import { readVaultToken, writeVaultToken } from "../local/vault.ts";
import type { Paths } from "../paths.ts";

export const HUMAN_CLASS = "human";
export const HUMAN_ROLE = "human";

export interface HumanAgent {
  agentId: string;
  token: string;
}

/** human-<user> for the Unix user's name (the composition root reads it), kept to the agent-id alphabet and length. */
export const humanAgentId = (userName: string): string => `human-${userName.replace(/[^A-Za-z0-9_.-]/g, "_")}`.slice(0, 64);

const session = { role: HUMAN_ROLE, ttlSeconds: TTL_MAX_SECONDS, status: "writing from the console" };

const tokenNotHere = (agentId: string, paths: Paths): AppError =>
  new AppError("AUTH_FAILED", `${agentId} is registered, but this state directory's vault holds no token for it`, {
    hint:
      `the console writes as ${agentId} with the token in ${paths.vaultDir}/${agentId}.token; put it there, or ` +
      `unregister the name (agent-identity-cli unregister --agent-id ${agentId}) so the console registers it afresh`,
  });

/** The human agent, registered on first use, checked in for the next day. */
export const ensureHumanAgent = async (deps: Deps, paths: Paths, agentId: string): Promise<HumanAgent> => {
  const kept = await readVaultToken(paths, agentId);
  if (kept) {
    await checkIn(deps, { agentId, token: kept, ...session });
    return { agentId, token: kept };
  }
  const known = await deps.store.read((tx) => tx.identity.getAgent(agentId));
  if (known) throw tokenNotHere(agentId, paths);
  const registered = await registerAgent(deps, {
    agentId,
    role: HUMAN_ROLE,
    capabilities: [],
    agentClass: HUMAN_CLASS,
    description: "the person at this host's console",
    token: undefined,
    session,
  });
  const token = registered.agent_token;
  if (!token) throw tokenNotHere(agentId, paths);
  // Registered with a token that exists nowhere else: a vault that cannot take it is said, not hidden.
  await writeVaultToken(paths, agentId, token).catch((error: unknown) => {
    throw new AppError("UNAVAILABLE", `${agentId} was registered but its token could not be saved in ${paths.vaultDir}`, {
      cause: error,
      hint: `free space or fix permissions in ${paths.vaultDir}, then unregister ${agentId} and write again`,
    });
  });
  return { agentId, token };
};
