import type { IdentityRecord, SessionRecord } from "../../store/port.ts";
import type { LocalHost } from "../deps.ts";

export type LivenessEvidence = "pid" | "age";

export interface Liveness {
  alive: boolean;
  /** pid: the holder's process was checked on this host; age: only its silence was measured against its ttl. */
  evidence: LivenessEvidence;
}

/** What registration recorded about the process holding a name. */
export type HolderProcess = Pick<IdentityRecord, "hostId" | "agentPid" | "agentPidStart">;

/** An open session within its own ttl: the delivery rule, and the age evidence of liveness. */
export const isSessionLive = (session: Pick<SessionRecord, "endedAt" | "expiresAt"> | undefined, now: number): boolean =>
  session !== undefined && session.endedAt === null && session.expiresAt > now;

/**
 * The liveness rule, for a caller that already knows whether the holder's session is live (a send learns
 * that with the inbox slot). livenessOf is this rule applied to a session record.
 */
export const holderLiveness = (agent: HolderProcess, sessionLive: boolean, local: LocalHost | undefined): Liveness => {
  if (local && agent.agentPid !== null && agent.hostId === local.hostId) {
    const status = local.probe(agent.agentPid);
    const reused = agent.agentPidStart !== null && status.startTime !== null && status.startTime !== agent.agentPidStart;
    return { alive: status.exists && !reused, evidence: "pid" };
  }
  return { alive: sessionLive, evidence: "age" };
};

/**
 * Whether the holder of a name is alive. On the host that recorded its pid the process itself is proof:
 * no such pid, or one with another start time (a reused pid), is dead however recent its last call,
 * and a running one is alive however long it has been silent. Anywhere else only age is known: alive
 * while its session is open and within its own ttl.
 */
export const livenessOf = (
  agent: HolderProcess,
  session: SessionRecord | undefined,
  now: number,
  local: LocalHost | undefined,
): Liveness => holderLiveness(agent, isSessionLive(session, now), local);
