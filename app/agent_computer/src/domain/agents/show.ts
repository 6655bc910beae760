import type { Deps } from "../deps.ts";
import { type AgentView, agentView } from "../identity/agent-view.ts";
import { authenticate } from "../identity/authenticate.ts";
import { livenessOf, localProcessOf } from "../identity/liveness.ts";

export interface ShowResult {
  success: true;
  agent: AgentView;
  open_tasks: number;
}

/** The agent's registration, its current session and liveness as others see them (authenticated; changes nothing). */
export const showAgent = (deps: Deps, input: { agentId: string; token: string | undefined }): Promise<ShowResult> =>
  deps.store.read(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const agent = await tx.identity.getAgent(input.agentId);
    if (!agent) throw new Error("agent vanished inside one snapshot");
    const open = await tx.mesh.openSession(input.agentId);
    const session = open && open.expiresAt > deps.now() ? open : undefined;
    const openTasks = (await tx.tasks.openLoad()).get(input.agentId) ?? 0;
    return {
      success: true as const,
      agent: agentView(agent, session, livenessOf(agent, session, deps.now(), deps.local), localProcessOf(agent, deps.local)),
      open_tasks: openTasks,
    };
  });
