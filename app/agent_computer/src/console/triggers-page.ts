// Triggers: checkbacks, cron schedules and webhook endpoints of every owner, with what each fires next.
// A webhook's signing secret is not part of a trigger view, so it cannot appear here.
import type { OwnedTriggerView } from "../domain/automation/overview.ts";
import { none, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";

const schedule = (t: OwnedTriggerView): Html => {
  if (t.kind === "checkback") return html`due ${when(t.due_at)}`;
  if (t.kind === "cron") {
    return html`<code>${t.cron}</code> (${t.tz})<br>next ${when(t.next_fire_at)}${
      t.skipped_count ? html`<br>${t.skipped_count} missed ticks skipped` : ""
    }`;
  }
  return html`${t.provider} signature<br><code>POST ${t.url}</code>`;
};

const row = (t: OwnedTriggerView): Html => html`<tr data-trigger-id="${t.id}">
<td data-field="trigger"><code>${t.id}</code></td>
<td data-field="kind">${t.kind}</td>
<td data-field="label">${t.label ?? none}</td>
<td data-field="owner">${t.owner}</td>
<td data-field="job">${t.automation_job_id ? html`<a href="/#${t.automation_job_id}"><code>${t.automation_job_id}</code></a>` : html`wakes ${t.owner}`}</td>
<td data-field="state"><span class="badge state-${t.state}">${t.state}</span></td>
<td data-field="schedule">${schedule(t)}</td>
<td data-field="fired" class="num">${t.fire_count}</td>
<td data-field="last_fired">${when(t.last_fired_at)}</td>
</tr>`;

export const triggersPage = (triggers: OwnedTriggerView[], limit: number): Page => ({
  title: "Triggers",
  body:
    triggers.length === 0
      ? html`<p class="empty">No triggers yet. <code>create-checkback-cli --help</code>, <code>create-cron-schedule-cli --help</code> and
<code>create-webhook-cli --help</code> explain them.</p>`
      : html`<p class="hint">The newest ${limit} triggers of every owner, ended ones included. A trigger without a job wakes its owner's
agent instead of running a script.</p>
<table class="triggers">
<thead><tr><th>Trigger</th><th>Kind</th><th>Label</th><th>Owner</th><th>Job</th><th>State</th><th>Schedule</th><th>Fired</th><th>Last fired</th></tr></thead>
<tbody>
${triggers.map(row)}
</tbody>
</table>`,
});
