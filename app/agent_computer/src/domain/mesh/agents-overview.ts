// The console's agents page: every agent (live and stale) a page at a time by name, with totals by liveness for the
// whole mesh and for each host the page shows, counted in SQL rather than by reading every agent.
import { atOneInstant, type Deps } from "../deps.ts";
import { type DirectoryEntry, listAgents } from "./directory.ts";
import { decodeCursor, encodeCursor } from "./operator-view.ts";

export interface AgentsOverview {
  agents: DirectoryEntry[];
  /** Every agent in the store, by liveness. */
  totals: { live: number; stale: number };
  /** Each host of this page's agents, with all of that host's agents counted by liveness; sorted by host. */
  hosts: { host: string; live: number; stale: number }[];
  /** Agents after this page. */
  following: number;
  /** Where the next page starts (opaque: the last agent's name, encoded); null on the last page. */
  next_cursor: string | null;
  note?: string;
}

export const agentsOverview = async (
  live: Deps,
  input: { cursor?: string | undefined; limit: number },
): Promise<AgentsOverview> => {
  const deps = atOneInstant(live);
  const after = decodeCursor(input.cursor);
  const r = await listAgents(deps, { includeStale: true, token: undefined, page: { after, limit: input.limit } });
  const names = [...new Set(r.agents.map((a) => a.host))].sort();
  const hosts = await deps.store.read((tx) => tx.mesh.directoryHostCounts(deps.now(), { status: "all" }, names));
  return {
    agents: r.agents,
    totals: r.totals,
    hosts,
    following: r.following,
    next_cursor: r.next_after === null ? null : encodeCursor(r.next_after),
    ...(r.note ? { note: r.note } : {}),
  };
};
