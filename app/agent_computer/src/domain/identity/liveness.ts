import type { IdentityRecord, SessionRecord } from "../../store/port.ts";
import type { LocalHost, LocalProcess } from "../deps.ts";

export type LivenessEvidence = "pid" | "age";

export interface Liveness {
  alive: boolean;
  /** pid: the holder's process was checked on this host; age: only its silence was measured against its ttl. */
  evidence: LivenessEvidence;
}

/** The name and host of a holder; its process, if it registered one, is on record only on that host. */
export type HolderProcess = Pick<IdentityRecord, "agentId" | "hostId">;

/** The process this host recorded for the agent, when the agent is registered on this host. */
export const localProcessOf = (agent: HolderProcess, local: LocalHost | undefined): LocalProcess | undefined =>
  local && agent.hostId === local.hostId ? local.processes.read(agent.agentId) : undefined;

/** An open session within its own ttl: the delivery rule, and the age evidence of liveness. */
export const isSessionLive = (session: Pick<SessionRecord, "endedAt" | "expiresAt"> | undefined, now: number): boolean =>
  session !== undefined && session.endedAt === null && session.expiresAt > now;

/**
 * The liveness rule, for a caller that already knows whether the holder's session is live (a send learns
 * that with the inbox slot). livenessOf is this rule applied to a session record.
 */
export const holderLiveness = (agent: HolderProcess, sessionLive: boolean, local: LocalHost | undefined): Liveness => {
  const process = localProcessOf(agent, local);
  if (local && process?.agentPid != null) {
    const status = local.probe(process.agentPid);
    const reused = process.agentPidStart !== null && status.startTime !== null && status.startTime !== process.agentPidStart;
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
