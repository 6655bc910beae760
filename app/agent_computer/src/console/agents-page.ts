// Agents: the mesh directory a page at a time by name, grouped by host, live and stale counted for the whole mesh and
// for each host (every agent of it, not only this page's), with each status line's age and what "alive" rests on.
import type { AgentsOverview } from "../domain/mesh/agents-overview.ts";
import { ALIVE_MEANS, type DirectoryEntry } from "../domain/mesh/directory.ts";
import { age, none, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";
import { pager } from "./message-list.ts";

const EVIDENCE = { pid: "its process on this host", age: "its last call, within its ttl" } as const;

const row = (a: DirectoryEntry): Html => html`<tr data-agent-id="${a.agent_id}" class="${a.alive ? "alive" : "stale"}">
<td data-field="agent"><strong>${a.agent_id}</strong><br><span class="sub">${a.class}${a.caps.length > 0 && html` · ${a.caps.join(", ")}`}</span></td>
<td data-field="liveness"><span class="dot"></span>${a.alive ? "alive" : "stale"}<br><span class="sub" title="${EVIDENCE[a.liveness_evidence]}">by ${a.liveness_evidence}</span></td>
<td data-field="host">${a.host}</td>
<td data-field="role">${a.role ?? none}${a.repo && html`<br><span class="sub">${a.repo}</span>`}</td>
<td data-field="status">${a.status ?? none}</td>
<td data-field="status_age" class="num">${a.status_age_s === null ? none : html`<span title="${a.status_age_s} seconds">${age(a.status_age_s)} ago</span>`}</td>
<td data-field="last_activity">${when(a.last_activity_at)}</td>
<td data-field="expires">${when(a.expires_at)}</td>
</tr>`;

const HEAD = html`<thead><tr><th>Agent</th><th>Liveness</th><th>Host</th><th>Role / repo</th><th>Status</th><th>Status age</th><th>Last activity</th><th>Session expires</th></tr></thead>`;

const byHost = (agents: DirectoryEntry[]): Map<string, DirectoryEntry[]> => {
  const hosts = new Map<string, DirectoryEntry[]>();
  for (const a of agents) hosts.set(a.host, [...(hosts.get(a.host) ?? []), a]);
  return new Map([...hosts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
};

const hostSection = ([host, agents]: [string, DirectoryEntry[]], counts: { live: number; stale: number } | undefined): Html => {
  const live = counts?.live ?? agents.filter((a) => a.alive).length;
  const stale = counts?.stale ?? agents.length - live;
  return html`<section class="host" data-host="${host}">
<h2 class="part">${host} <span class="sub" data-field="host-counts">${live} live · ${stale} stale${
    live + stale > agents.length && html` (${agents.length} on this page)`
  }</span></h2>
<table class="agents">
${HEAD}
<tbody>
${[...agents.filter((a) => a.alive), ...agents.filter((a) => !a.alive)].map(row)}
</tbody>
</table>
</section>`;
};

export const agentsPage = (overview: AgentsOverview, limit: number, first: boolean): Page => {
  const { agents, totals } = overview;
  const counts = new Map(overview.hosts.map((h) => [h.host, h]));
  return {
    title: "Agents",
    body:
      agents.length === 0
        ? first
          ? html`<p class="empty">No agent has checked in yet. <code>agent-checkin-cli --help</code> explains how.</p>`
          : html`<p class="empty">No more agents (<a href="/agents">back to the first page</a>).</p>`
        : html`<p class="hint" data-field="totals">Every agent's latest session by host, stale ones included: ${totals.live} live, ${totals.stale} stale in all; ${limit} a page by name${
            first ? "" : html` (<a href="/agents">back to the first page</a>)`
          }. ${ALIVE_MEANS}.</p>
${[...byHost(agents)].map((entry) => hostSection(entry, counts.get(entry[0])))}
${pager(overview.next_cursor && `/agents?cursor=${overview.next_cursor}`, `Next agents (${overview.following} more)`)}`,
  };
};
