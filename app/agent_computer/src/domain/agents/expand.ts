import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { Deps } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { assignQueued } from "../tasks/route.ts";
import type { TaskSummary } from "../tasks/task-view.ts";

export interface ExpandInput {
  agentId: string;
  token: string | undefined;
  add: string[];
  remove: string[];
}

export interface ExpandResult {
  success: true;
  name: string;
  added: string[];
  capabilities: string[];
  auto_assigned_tasks?: TaskSummary[];
}

/**
 * Adds capabilities to a registered agent. Capabilities only grow: others route tasks by them, so a
 * silent removal would strand work. An agent that is checked in gets the queued tasks it can now do.
 */
export const expandCapabilities = async (deps: Deps, input: ExpandInput): Promise<ExpandResult> => {
  if (input.remove.length > 0) {
    throw new AppError("REDUCTION_NOT_ALLOWED", `capabilities cannot be removed (asked to remove ${input.remove.join(", ")})`, {
      hint: `to drop capabilities: agent-identity-cli unregister --agent-id ${input.agentId}, then register-agent-cli with the new set`,
    });
  }
  return deps.store.write(async (tx) => {
    const agent = await authenticate(tx, input.agentId, input.token, { lock: true });
    const added = [...new Set(input.add)].filter((cap) => !agent.capabilities.includes(cap));
    if (added.length === 0) {
      throw new AppError("NO_OP_EXPANSION", `${input.agentId} already has ${input.add.join(", ")}; nothing was added`, {
        hint: `name at least one capability it does not have yet (${commandLine("agent-identity-cli", "show", "--agent-id", input.agentId)} lists them)`,
      });
    }
    const capabilities = [...agent.capabilities, ...added];
    await tx.identity.setCapabilities(input.agentId, capabilities, deps.now());
    const identity = await tx.identity.getAgent(input.agentId);
    const open = await tx.mesh.openSession(input.agentId);
    const assigned = identity && open && open.expiresAt > deps.now() ? await assignQueued(deps, tx, identity) : [];
    return {
      success: true as const,
      name: input.agentId,
      added,
      capabilities,
      ...(assigned.length > 0 ? { auto_assigned_tasks: assigned } : {}),
    };
  });
};
