import type { StoreTx } from "../../store/port.ts";

/**
 * The one lock order of agents' rows. A transaction that writes the rows of several agents (the sender's
 * presence and its recipients' inbox sequence numbers, the parties of a task, the senders of bounced mail, the
 * owners of fired triggers) locks all of them here, together and in name order, before it writes any: two such
 * transactions over overlapping agents then wait for each other in turn instead of deadlocking (A sending to B
 * while B sends to A would otherwise each hold its own row and wait for the other's). One row needs no
 * statement of its own: its UPDATE takes its lock.
 */
export const lockAgentsInOrder = async (tx: StoreTx, agentIds: Iterable<string>): Promise<void> => {
  const unique = [...new Set(agentIds)];
  if (unique.length >= 2) await tx.mesh.lockAgents(unique);
};
