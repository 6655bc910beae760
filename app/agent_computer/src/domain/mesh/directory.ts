import type { IdentityRecord, SessionRecord, StoreTx } from "../../store/port.ts";
import { atOneInstant, type Deps, iso } from "../deps.ts";
import { isSessionLive, type LivenessEvidence, livenessOf } from "../identity/liveness.ts";
import { enterMesh, withPresence } from "./live-session.ts";

export interface DirectoryInput {
  includeStale: boolean;
  agentId?: string | undefined;
  token: string | undefined;
}

export interface DirectoryEntry {
  agent_id: string;
  class: string;
  alive: boolean;
  /** pid: alive or dead by the agent's process on this host; age: by its silence against its own ttl. */
  liveness_evidence: LivenessEvidence;
  host: string;
  role: string | null;
  repo: string | null;
  caps: string[];
  status: string | null;
  status_age_s: number | null;
  last_activity_at: string;
  expires_at: string;
  session_id: string;
}

export interface DirectoryResult {
  agents: DirectoryEntry[];
  note: string;
  /** Why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

export const ALIVE_MEANS =
  "alive means the agent called the mesh within its own ttl (liveness_evidence age), or, for an agent registered with " +
  "its pid on this host, that its process is running (liveness_evidence pid); not that it is reachable right now";

const toEntry = (deps: Deps, session: SessionRecord, agent: IdentityRecord | undefined): DirectoryEntry => {
  const now = deps.now();
  const liveness = agent
    ? livenessOf(agent, session, now, deps.local)
    : { alive: isSessionLive(session, now), evidence: "age" as const };
  return {
    agent_id: session.agentId,
    class: agent?.agentClass ?? "unclassified",
    alive: liveness.alive,
    liveness_evidence: liveness.evidence,
    host: session.host,
    role: session.role,
    repo: session.repo,
    caps: session.caps,
    status: session.statusLine,
    status_age_s: session.statusSetAt === null ? null : Math.max(0, Math.floor((now - session.statusSetAt) / 1000)),
    last_activity_at: iso(session.lastActivityAt),
    expires_at: iso(session.expiresAt),
    session_id: session.id,
  };
};

const entries = async (tx: StoreTx, deps: Deps, includeStale: boolean): Promise<DirectoryEntry[]> => {
  const sessions = await tx.mesh.directory(deps.now(), includeStale);
  const result: DirectoryEntry[] = [];
  for (const session of sessions) {
    const entry = toEntry(deps, session, await tx.identity.getAgent(session.agentId));
    // A session within its ttl whose process is proven dead is not listed as live.
    if (includeStale || entry.alive) result.push(entry);
  }
  return result;
};

/** The agent directory; passing your own --agent-id (with its token) also renews your presence. */
export const listAgents = async (live: Deps, input: DirectoryInput): Promise<DirectoryResult> => {
  const deps = atOneInstant(live);
  if (!input.agentId) return { agents: await deps.store.read((tx) => entries(tx, deps, input.includeStale)), note: ALIVE_MEANS };
  const { value: agents, warning } = await withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId as string, input.token, false, renew);
    return entries(tx, deps, input.includeStale);
  });
  return { agents, note: ALIVE_MEANS, ...(warning ? { warning } : {}) };
};
