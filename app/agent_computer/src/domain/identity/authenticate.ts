import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { AgentRecord, StoreTx } from "../../store/port.ts";
import { tokenMatches } from "./token.ts";
import { TOKEN_SOURCES_HINT, TokenMismatch } from "./token-mismatch.ts";

export { TOKEN_SOURCES_HINT } from "./token-mismatch.ts";

/** Loads the agent and checks the presented token; every authenticated call starts here. */
export const authenticate = async (
  tx: StoreTx,
  name: string,
  token: string | undefined,
  options: { lock?: boolean } = {},
): Promise<AgentRecord> => {
  const agent = await tx.mesh.getAgent(name, options.lock);
  verifyCredentials(name, token, agent);
  return agent;
};

/** Checks a presented token against what the store holds for the name (undefined: no such agent). */
export function verifyCredentials<T extends Pick<AgentRecord, "tokenHash" | "authState">>(
  name: string,
  token: string | undefined,
  agent: T | undefined,
): asserts agent is T {
  if (!agent) {
    throw new AppError("UNKNOWN_AGENT", `no agent named ${name} is registered`, {
      hint: `register it first: ${commandLine("agent-checkin-cli", "--agent-id", name, "--confirm")} (see agent-checkin-cli --help)`,
    });
  }
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
}
