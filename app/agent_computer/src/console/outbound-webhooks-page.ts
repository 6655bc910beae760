// Outbound webhooks: every owner's endpoints (state, why disabled, event counts) and the most recent delivery
// attempts. A secret is not part of an endpoint view and a URL is shown without its query, so neither appears here.
import type { AttemptView, WebhooksOverview } from "../domain/outbound-webhooks/endpoints.ts";
import { duration, none, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";

const endpointRow = (e: WebhooksOverview["endpoints"][number]): Html => html`<tr data-endpoint-id="${e.id}">
<td data-field="endpoint"><code>${e.id}</code></td>
<td data-field="owner">${e.owner}</td>
<td data-field="url"><code>${e.url}</code></td>
<td data-field="events">${e.events.join(", ")}</td>
<td data-field="state"><span class="badge state-${e.state}">${e.state}</span>${e.disabled_reason ? html`<br>${e.disabled_reason}` : ""}</td>
<td data-field="pending" class="num">${e.events_by_state.pending}</td>
<td data-field="delivered" class="num">${e.events_by_state.delivered}</td>
<td data-field="failed" class="num">${e.events_by_state.failed}</td>
</tr>`;

const attemptRow = (a: AttemptView): Html => html`<tr data-event-id="${a.event_id}" data-attempt="${a.attempt}">
<td data-field="started">${when(a.started_at)}</td>
<td data-field="endpoint"><code>${a.endpoint_id}</code></td>
<td data-field="event"><code>${a.event_id}</code><br>${a.type}</td>
<td data-field="attempt" class="num">${a.attempt}</td>
<td data-field="outcome">${a.outcome ? html`<span class="badge state-${a.outcome}">${a.outcome}</span>` : "in flight"}</td>
<td data-field="status" class="num">${a.status_code ?? none}</td>
<td data-field="error">${a.error_kind ?? none}</td>
<td data-field="duration" class="num">${duration(a.duration_ms)}</td>
<td data-field="worker"><code>${a.worker_id}</code></td>
</tr>`;

export const webhooksPage = (overview: WebhooksOverview, limits: { endpoints: number; attempts: number }): Page => ({
  title: "Webhooks",
  body:
    overview.endpoints.length === 0
      ? html`<p class="empty">No outbound webhook endpoints yet. <code>agent-webhook-cli --help</code> explains them.</p>`
      : html`<p class="hint">Outbound endpoints of every owner (the newest ${limits.endpoints}) and their most recent ${limits.attempts}
delivery attempts. Secrets are never shown, URLs without their query string.</p>
<table class="webhooks">
<thead><tr><th>Endpoint</th><th>Owner</th><th>URL</th><th>Events</th><th>State</th><th>Pending</th><th>Delivered</th><th>Failed</th></tr></thead>
<tbody>
${overview.endpoints.map(endpointRow)}
</tbody>
</table>
<h2>Recent attempts</h2>
${
  overview.attempts.length === 0
    ? html`<p class="empty">No delivery attempts yet.</p>`
    : html`<table class="attempts">
<thead><tr><th>Started</th><th>Endpoint</th><th>Event</th><th>#</th><th>Outcome</th><th>Status</th><th>Error</th><th>Duration</th><th>Worker</th></tr></thead>
<tbody>
${overview.attempts.map(attemptRow)}
</tbody>
</table>`
}`,
});
