import { AppError } from "../../errors.ts";
import { type Deps, iso } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { hashToken, mintToken } from "../identity/token.ts";

export interface RotateResult {
  success: true;
  name: string;
  agent_token: string;
  auth_note: string;
  rotated_at: string;
}

export const ROTATE_NOTE =
  "The old token stopped working now. This one is shown once; it replaced the old one in the 0600 vault of this host. " +
  "Update RELAY_AGENT_TOKEN or your --token-file wherever the old token was kept.";

/** Replaces the token (compare-and-swap on the hash that authenticated, so two rotations cannot both win). */
export const rotateToken = (deps: Deps, input: { agentId: string; token: string | undefined }): Promise<RotateResult> =>
  deps.store.write(async (tx) => {
    const agent = await authenticate(tx, input.agentId, input.token, { lock: true });
    const token = mintToken();
    const next = { tokenHash: hashToken(token), authState: "active" as const, recoveryHash: null };
    if (!(await tx.identity.swapCredentials(input.agentId, agent.tokenHash, next, deps.now()))) {
      throw new AppError("AUTH_FAILED", `the token of ${input.agentId} changed while rotating it`);
    }
    return {
      success: true as const,
      name: input.agentId,
      agent_token: token,
      auth_note: ROTATE_NOTE,
      rotated_at: iso(deps.now()),
    };
  });
