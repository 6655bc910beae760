import type { DirectoryFilter, IdentityRecord, SessionRecord, StoreTx } from "../../store/port.ts";
import { atOneInstant, type Deps, iso } from "../deps.ts";
import { isSessionLive, type LivenessEvidence, livenessOf } from "../identity/liveness.ts";
import { enterMesh, withPresence } from "./live-session.ts";

export interface DirectoryInput {
  /** Without a filter: live agents, or with includeStale every agent (live and stale). */
  includeStale?: boolean;
  filter?: Partial<DirectoryFilter>;
  /** One page: at most `limit` agents whose names sort after `after`; every match without a limit. */
  page?: { after?: string | undefined; limit: number };
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
  /** Agents the filter selects (its status aside), by liveness in the store; with a page, also how many follow it. */
  totals: { live: number; stale: number };
  /** With a page: how many of the filter's agents sort after the last one scanned (0 on the last page). */
  following: number;
  /** The name the next page starts after, when more follow. */
  next_after: string | null;
  /** Said only when an agent shown needs it: its liveness rests on its process, not on its ttl. */
  note?: string;
  /** Why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

export const ALIVE_MEANS =
  "alive means the agent called the mesh within its own ttl (liveness_evidence age), or, for an agent registered with " +
  "its pid on this host, that its process is running (liveness_evidence pid); not that it is reachable right now";

/** The one line shown when some agent's liveness rests on its process rather than its ttl. */
export const PID_EVIDENCE_NOTE =
  "liveness_evidence pid: alive or dead by the agent's registered process on this host, whatever its ttl says";

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

const filterOf = (input: DirectoryInput): DirectoryFilter => ({
  ...input.filter,
  status: input.filter?.status ?? (input.includeStale ? "all" : "live"),
});

const entries = async (tx: StoreTx, deps: Deps, input: DirectoryInput): Promise<Omit<DirectoryResult, "warning">> => {
  const filter = filterOf(input);
  const now = deps.now();
  const page = input.page;
  const sessions = await tx.mesh.directory(now, filter, page ? { after: page.after, limit: page.limit + 1 } : {});
  const scanned = page ? sessions.slice(0, page.limit) : sessions;
  const last = scanned.at(-1)?.agentId;
  const more = page !== undefined && sessions.length > page.limit;
  const counts = await tx.mesh.directoryCounts(now, filter, more ? last : undefined);
  const agents: DirectoryEntry[] = [];
  for (const session of scanned) {
    const entry = toEntry(deps, session, await tx.identity.getAgent(session.agentId));
    // A session within its ttl whose process is proven dead is listed as live only with status all.
    if (filter.status !== "live" || entry.alive) agents.push(entry);
  }
  const pidShown = agents.some((a) => a.liveness_evidence === "pid");
  return {
    agents,
    totals: { live: counts.live, stale: counts.stale },
    following: more ? counts.after : 0,
    next_after: more && last !== undefined ? last : null,
    ...(pidShown ? { note: PID_EVIDENCE_NOTE } : {}),
  };
};

/** A read, which with the caller's own agent id (and token) also renews its presence. */
const asCaller = async <T>(
  deps: Deps,
  input: DirectoryInput,
  read: (tx: StoreTx) => Promise<T>,
): Promise<{ value: T; warning?: string }> => {
  if (!input.agentId) return { value: await deps.store.read(read) };
  return withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId as string, input.token, false, renew);
    return read(tx);
  });
};

/** Live agents counted per class and per host (the filter's narrowing applies; status is live). */
export interface DirectoryTopology {
  live: number;
  classes: { class: string; count: number }[];
  hosts: { host: string; count: number }[];
}

export const directoryTopology = async (live: Deps, input: DirectoryInput): Promise<DirectoryTopology & { warning?: string }> => {
  const deps = atOneInstant(live);
  const { value: groups, warning } = await asCaller(deps, input, (tx) => tx.mesh.directoryTopology(deps.now(), filterOf(input)));
  const tally = (key: (g: (typeof groups)[number]) => string): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const g of groups) counts.set(key(g), (counts.get(key(g)) ?? 0) + g.count);
    return counts;
  };
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    ...(warning ? { warning } : {}),
    live: groups.reduce((sum, g) => sum + g.count, 0),
    classes: sorted(tally((g) => g.agentClass)).map(([name, count]) => ({ class: name, count })),
    hosts: sorted(tally((g) => g.host)).map(([host, count]) => ({ host, count })),
  };
};

/** The agent directory; passing your own --agent-id (with its token) also renews your presence. */
export const listAgents = async (live: Deps, input: DirectoryInput): Promise<DirectoryResult> => {
  const deps = atOneInstant(live);
  const { value, warning } = await asCaller(deps, input, (tx) => entries(tx, deps, input));
  return { ...value, ...(warning ? { warning } : {}) };
};
