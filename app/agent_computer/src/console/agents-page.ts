// Agents: the mesh directory, stale agents included, with each status line's age and what "alive" rests on.
import { ALIVE_MEANS, type DirectoryEntry, type DirectoryResult } from "../domain/mesh/directory.ts";
import { age, none, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";

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

export const agentsPage = (directory: DirectoryResult): Page => ({
  title: "Agents",
  body:
    directory.agents.length === 0
      ? html`<p class="empty">No agent has checked in yet. <code>agent-checkin-cli --help</code> explains how.</p>`
      : html`<p class="hint">Every agent's latest session, stale ones included: ${ALIVE_MEANS}.</p>
<table class="agents">
<thead><tr><th>Agent</th><th>Liveness</th><th>Host</th><th>Role / repo</th><th>Status</th><th>Status age</th><th>Last activity</th><th>Session expires</th></tr></thead>
<tbody>
${directory.agents.map(row)}
</tbody>
</table>`,
});
