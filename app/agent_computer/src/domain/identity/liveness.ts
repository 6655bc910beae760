import type { IdentityRecord, SessionRecord } from "../../store/port.ts";
import type { LocalHost } from "../deps.ts";

export type LivenessEvidence = "pid" | "age";

export interface Liveness {
  alive: boolean;
  /** pid: the holder's process was checked on this host; age: only its silence was measured against its ttl. */
  evidence: LivenessEvidence;
}

/**
 * Whether the holder of a name is alive. On the host that recorded its pid the process itself is proof:
 * no such pid, or one with another start time (a reused pid), is dead however recent its last call,
 * and a running one is alive however long it has been silent. Anywhere else only age is known: alive
 * while its session is open and within its own ttl.
 */
export const livenessOf = (
  agent: Pick<IdentityRecord, "hostId" | "agentPid" | "agentPidStart">,
  session: SessionRecord | undefined,
  now: number,
  local: LocalHost | undefined,
): Liveness => {
  if (local && agent.agentPid !== null && agent.hostId === local.hostId) {
    const status = local.probe(agent.agentPid);
    const reused = agent.agentPidStart !== null && status.startTime !== null && status.startTime !== agent.agentPidStart;
    return { alive: status.exists && !reused, evidence: "pid" };
  }
  return { alive: session !== undefined && session.endedAt === null && session.expiresAt > now, evidence: "age" };
};
