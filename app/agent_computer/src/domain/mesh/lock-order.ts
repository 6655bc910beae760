import type { StoreTx } from "../../store/port.ts";

/**
 * The one lock order of agents' rows. A transaction that writes the rows of several agents (the parties of a task,
 * the members of a channel post, the senders of bounced mail, the owners of fired triggers; a send's sender and
 * recipients are locked by MeshRepo.storeMessage with the same statement) locks all of them here, together and in
 * name order (the store's one statement, MeshRepo.lockAgents), before it writes any: two such
 * transactions over overlapping agents then wait for each other in turn instead of deadlocking (A sending to B
 * while B sends to A would otherwise each hold its own row and wait for the other's). One row needs no
 * statement of its own: its UPDATE takes its lock.
 */
export const lockAgentsInOrder = async (tx: StoreTx, agentIds: Iterable<string>): Promise<void> => {
  const unique = [...new Set(agentIds)];
  if (unique.length >= 2) await tx.mesh.lockAgents(unique);
};
