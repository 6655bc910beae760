import { CliError } from "../../cli/kernel/errors.ts";
import type { AgentRecord, SessionRecord, StoreTx } from "../../store/port.ts";
import { authenticate } from "../identity/authenticate.ts";
import type { MeshDeps } from "./deps.ts";
import { endExpiredSessions } from "./expiry.ts";

/**
 * The common start of an authenticated mesh call: expire what is due, check the token, renew presence.
 * With `require`, a missing live session is an error naming the command that fixes it, and the renewed
 * session is returned; without it, presence is renewed if there is a session and nothing more is read.
 */
export async function enterMesh(
  deps: MeshDeps,
  tx: StoreTx,
  agentId: string,
  token: string | undefined,
  require: true,
): Promise<{ agent: AgentRecord; session: SessionRecord }>;
export async function enterMesh(
  deps: MeshDeps,
  tx: StoreTx,
  agentId: string,
  token: string | undefined,
  require: false,
): Promise<{ agent: AgentRecord }>;
export async function enterMesh(deps: MeshDeps, tx: StoreTx, agentId: string, token: string | undefined, require: boolean) {
  await endExpiredSessions(tx, deps.now, deps.newId);
  const agent = await authenticate(tx, agentId, token);
  await tx.mesh.touchAgent(agentId, deps.now);
  if (!require) {
    await tx.mesh.extendSession(agentId, deps.now);
    return { agent };
  }
  const session = await tx.mesh.renewSession(agentId, deps.now);
  if (!session) {
    throw new CliError("NOT_CHECKED_IN", `${agentId} has no live check-in, so it has no inbox to read`, {
      hint: "check in first: agent-checkin-cli --agent-id <name> --confirm (see agent-checkin-cli --help)",
    });
  }
  return { agent, session };
}
