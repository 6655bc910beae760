import { AppError } from "../../errors.ts";
import type { AgentRecord, StoreTx } from "../../store/port.ts";
import { tokenMatches } from "./token.ts";
import { TOKEN_SOURCES_HINT, TokenMismatch } from "./token-mismatch.ts";
import { unknownAgent } from "./unknown-agent.ts";

export { TOKEN_SOURCES_HINT } from "./token-mismatch.ts";

/** Loads the agent and checks the presented token; every authenticated call starts here. */
export const authenticate = async (
  tx: StoreTx,
  name: string,
  token: string | undefined,
  options: { lock?: boolean } = {},
): Promise<AgentRecord> => verifyCredentials(tx, name, token, await tx.mesh.getAgent(name, options.lock));

/**
 * Checks a presented token against what the store holds for the name (undefined: no such agent, answered with the
 * registered names close to it).
 */
export const verifyCredentials = async <T extends Pick<AgentRecord, "tokenHash" | "authState">>(
  tx: StoreTx,
  name: string,
  token: string | undefined,
  agent: T | undefined,
): Promise<T> => {
  if (!agent) throw await unknownAgent(tx, name);
  checkToken(name, token, agent);
  return agent;
};

const checkToken = (name: string, token: string | undefined, agent: Pick<AgentRecord, "tokenHash" | "authState">): void => {
  if (agent.authState === "recovery_pending") {
    throw new AppError("RECOVERY_REQUIRED", `the token of ${name} was revoked`, {
      hint: "re-register with the recovery token (see register-agent-cli --help)",
    });
  }
  if (agent.authState === "revoked") {
    throw new AppError("AUTH_FAILED", `the token of ${name} was revoked`, {
      hint: "register the name again to get a new token (see register-agent-cli --help)",
    });
  }
  if (token === undefined) throw new AppError("AUTH_FAILED", `no token for ${name}`, { hint: TOKEN_SOURCES_HINT });
  if (!tokenMatches(token, agent.tokenHash)) throw new TokenMismatch(name);
};
