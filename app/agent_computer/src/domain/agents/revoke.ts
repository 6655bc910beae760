import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import { type Deps, iso } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { hashToken, mintRecoveryToken } from "../identity/token.ts";
import { bounceUndelivered } from "../mesh/expiry.ts";
import { endHolderHistory } from "./end-history.ts";

export interface RevokeResult {
  success: true;
  name: string;
  auth_state: "revoked" | "recovery_pending";
  revoked_at: string;
  ended_session_id: string | null;
  recovery_token?: string;
  recovery_note?: string;
  note: string;
}

/** Says how the recovery token is used, as a command with this agent's own values. */
const recoveryNote = (agent: { agentId: string; role: string | null; capabilities: string[] }): string =>
  "This recovery token is shown once and only its hash is stored. Give it to whoever resumes this name; they save it " +
  `to a file and run ${commandLine(
    "register-agent-cli",
    "--agent-id",
    agent.agentId,
    "--role",
    agent.role ?? "builder",
    "--capabilities",
    agent.capabilities.join(",") || "none",
    "--recovery-token-file",
    `${agent.agentId}.recovery`,
  )} to get a fresh agent token.`;

/**
 * Revokes the token: nothing authenticates as this name any more and its session ends. With a recovery
 * token the name stays reserved, with its history, for whoever holds it; without, the name is released (its
 * immutable facts kept) and its history ends: the next register-agent-cli of the name mints a new token for
 * anyone and starts clean.
 */
export const revokeToken = (
  deps: Deps,
  input: { agentId: string; token: string | undefined; issueRecovery: boolean },
): Promise<RevokeResult> =>
  deps.store.write(async (tx) => {
    const agent = await authenticate(tx, input.agentId, input.token, { lock: true });
    const recovery = input.issueRecovery ? mintRecoveryToken() : undefined;
    const next = {
      tokenHash: "",
      authState: recovery ? ("recovery_pending" as const) : ("revoked" as const),
      recoveryHash: recovery ? hashToken(recovery) : null,
    };
    if (!(await tx.identity.swapCredentials(input.agentId, agent.tokenHash, next, deps.now()))) {
      throw new AppError("AUTH_FAILED", `the token of ${input.agentId} changed while revoking it`);
    }
    const open = await tx.mesh.openSession(input.agentId);
    if (open && (await tx.identity.endOpenSession(input.agentId, open.id, deps.now()))) {
      await bounceUndelivered(tx, { ...open, endedAt: deps.now() }, deps.now(), deps.newId);
    }
    // Released for anyone: what its holder had ends here, so nothing of it reaches whoever registers it next.
    if (!recovery) await endHolderHistory(deps, tx, input.agentId, deps.now() + 1);
    return {
      success: true as const,
      name: input.agentId,
      auth_state: next.authState,
      revoked_at: iso(deps.now()),
      ended_session_id: open?.id ?? null,
      ...(recovery ? { recovery_token: recovery, recovery_note: recoveryNote(agent) } : {}),
      note: recovery
        ? `${input.agentId} is recovery_pending: only the recovery token can register it again`
        : `${input.agentId} is revoked and its history ended (mail, threads, sent view, channels, webhooks, contact lists): the next register-agent-cli --agent-id ${input.agentId} mints a new token and starts clean`,
    };
  });
