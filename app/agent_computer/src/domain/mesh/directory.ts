import type { SessionRecord, StoreTx } from "../../store/port.ts";
import { type MeshDeps, iso } from "./deps.ts";
import { enterMesh } from "./live-session.ts";

export interface DirectoryInput {
  includeStale: boolean;
  agentId?: string | undefined;
  token: string | undefined;
}

export interface DirectoryEntry {
  agent_id: string;
  class: string;
  alive: boolean;
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
}

export const ALIVE_MEANS = "alive means the agent called the mesh within its own ttl, not that it is reachable right now";

const toEntry = (session: SessionRecord, agentClass: string, now: number): DirectoryEntry => ({
  agent_id: session.agentName,
  class: agentClass,
  alive: session.endedAt === null && session.expiresAt > now,
  host: session.host,
  role: session.role,
  repo: session.repo,
  caps: session.caps,
  status: session.statusLine,
  status_age_s: session.statusSetAt === null ? null : Math.max(0, Math.floor((now - session.statusSetAt) / 1000)),
  last_activity_at: iso(session.lastActivityAt),
  expires_at: iso(session.expiresAt),
  session_id: session.id,
});

const entries = async (tx: StoreTx, now: number, includeStale: boolean): Promise<DirectoryEntry[]> => {
  const sessions = await tx.mesh.directory(now, includeStale);
  const result: DirectoryEntry[] = [];
  for (const session of sessions) {
    const agent = await tx.mesh.getAgent(session.agentName);
    result.push(toEntry(session, agent?.agentClass ?? "unclassified", now));
  }
  return result;
};

/** The agent directory; passing your own --agent-id (with its token) also renews your presence. */
export const listAgents = async (deps: MeshDeps, input: DirectoryInput): Promise<DirectoryResult> => {
  const agents = input.agentId
    ? await deps.store.write(async (tx) => {
        await enterMesh(deps, tx, input.agentId as string, input.token, false);
        return entries(tx, deps.now, input.includeStale);
      })
    : await deps.store.read((tx) => entries(tx, deps.now, input.includeStale));
  return { agents, note: ALIVE_MEANS };
};
