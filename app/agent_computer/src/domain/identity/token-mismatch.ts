// A presented token that is not the agent's. The domain knows only the name; the caller that resolved the token
// (the CLI kernel, cli/kernel/credential.ts) knows where it came from and names that source, never the token.
import { AppError } from "../../errors.ts";

export const TOKEN_SOURCES_HINT =
  "pass the file holding its token with --token-file, set RELAY_AGENT_TOKEN, or keep the token in the vault (written at registration)";

/** AUTH_FAILED for a token that is not this agent's; `agentName` lets the caller say which source to fix. */
export class TokenMismatch extends AppError {
  readonly agentName: string;

  constructor(agentName: string) {
    super("AUTH_FAILED", `the token does not match agent ${agentName}`, { hint: TOKEN_SOURCES_HINT });
    this.agentName = agentName;
  }
}
