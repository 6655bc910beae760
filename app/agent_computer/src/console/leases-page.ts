// Leases: Herdr controller leases and writer lanes, and file reservations, on every host that shares the store.
import type { LeasesOverview } from "../domain/herdr/leases-overview.ts";
import type { ReservationView } from "../domain/reservations/reservation-view.ts";
import { none, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";

const controllerRow = (l: LeasesOverview["controllers"][number]): Html => html`<tr data-controller-id="${l.controller_id}">
<td data-field="controller">${l.controller_id}</td><td data-field="host">${l.host_id}</td>
<td data-field="generation" class="num">${l.generation}</td><td data-field="renewed">${when(l.renewed_at)}</td>
<td data-field="expires">${when(l.expires_at)}</td></tr>`;

const paneRow = (l: LeasesOverview["panes"][number]): Html => html`<tr data-pane-lease-id="${l.lease_id}">
<td data-field="agent">${l.agent_name}<br><span class="sub">${l.agent_kind}</span></td>
<td data-field="type">${l.type}</td><td data-field="state"><span class="badge state-${l.state}">${l.state}</span></td>
<td data-field="controller">${l.controller_id}</td><td data-field="purpose">${l.purpose}</td>
<td data-field="pane">${l.pane_id ?? none}</td><td data-field="updated">${when(l.updated_at)}</td></tr>`;

const writerRow = (c: LeasesOverview["writers"][number]): Html => html`<tr data-lease-id="${c.lease_id}">
<td data-field="branch"><code>${c.branch}</code><br><span class="sub">${c.worktree}</span></td>
<td data-field="state"><span class="badge state-${c.state}">${c.state}</span></td>
<td data-field="controller">${c.controller_id}<br><span class="sub">${c.host_id}</span></td>
<td data-field="scopes">${c.owned_scopes.join(", ")}</td><td data-field="ticket">${c.ticket_ref}</td>
<td data-field="created">${when(c.created_at)}</td></tr>`;

const reservationRow = (r: ReservationView): Html => html`<tr data-reservation-id="${r.id}">
<td data-field="patterns"><code>${r.patterns.join(" ")}</code></td>
<td data-field="holder">${r.holder}</td><td data-field="exclusive">${r.exclusive ? "exclusive" : "shared"}</td>
<td data-field="reason">${r.reason}</td><td data-field="repo"><code class="sub">${r.repo.slice(0, 12)}</code></td>
<td data-field="expires">${when(r.expires_at)}</td></tr>`;

const section = (title: string, rows: Html[], empty: string, head: Html): Html =>
  html`<h2 class="part">${title}</h2>${rows.length === 0 ? html`<p class="empty">${empty}</p>` : html`<table><thead>${head}</thead><tbody>${rows}</tbody></table>`}`;

export const leasesPage = (leases: LeasesOverview, reservations: ReservationView[], limit: number): Page => ({
  title: "Leases",
  body: html`<p class="hint">What is held right now, at most ${limit} of each: Herdr controllers, panes leased on this host, writer lanes, and file
reservations (<code>agent-reserve-cli list</code> shows one repository's).</p>
${section(
  "Herdr controllers",
  leases.controllers.map(controllerRow),
  "No Herdr controller holds a lease.",
  html`<tr><th>Controller</th><th>Host</th><th>Generation</th><th>Renewed</th><th>Expires</th></tr>`,
)}
${section(
  "Herdr panes leased on this host",
  leases.panes.map(paneRow),
  "No Herdr pane is leased on this host.",
  html`<tr><th>Agent</th><th>Type</th><th>State</th><th>Controller</th><th>Purpose</th><th>Pane</th><th>Updated</th></tr>`,
)}
${section(
  "Herdr writer lanes",
  leases.writers.map(writerRow),
  "No writer lane holds a branch.",
  html`<tr><th>Branch / worktree</th><th>State</th><th>Controller</th><th>Scopes</th><th>Ticket</th><th>Created</th></tr>`,
)}
${section(
  "File reservations",
  reservations.map(reservationRow),
  "No file is reserved.",
  html`<tr><th>Patterns</th><th>Holder</th><th>Kind</th><th>Reason</th><th>Repository</th><th>Expires</th></tr>`,
)}`,
});
