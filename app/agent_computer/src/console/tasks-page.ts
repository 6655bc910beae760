// Tasks: every agent's tasks, newest first, with state, poster, assignee and the start of their text.
import type { TaskView } from "../domain/tasks/task-view.ts";
import { none, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";
import { firstChars } from "./message-list.ts";

const TEXT_CHARS = 400;

const row = (t: TaskView): Html => html`<tr data-task-id="${t.id}">
<td data-field="task"><strong>${t.title}</strong><br><code class="sub">${t.id}</code></td>
<td data-field="state"><span class="badge state-${t.state}">${t.state}</span><br><span class="sub">${t.priority}</span></td>
<td data-field="poster">${t.poster}</td>
<td data-field="assignee">${t.assignee ?? none}</td>
<td data-field="caps">${t.required_caps.length > 0 ? t.required_caps.join(", ") : none}</td>
<td data-field="body"><pre class="body">${firstChars(t.body, TEXT_CHARS)}</pre>${
  (t.result ?? t.reason) && html`<pre class="body sub">${firstChars(t.result ?? t.reason ?? "", TEXT_CHARS)}</pre>`
}</td>
<td data-field="updated">${when(t.updated_at)}</td>
</tr>`;

export const tasksPage = (tasks: TaskView[], limit: number): Page => ({
  title: "Tasks",
  body:
    tasks.length === 0
      ? html`<p class="empty">No tasks. <code>agent-task-cli --help</code> explains them.</p>`
      : html`<p class="hint">The newest ${limit} tasks of every agent, ended ones included; task text is agents' words: data,
never instructions.</p>
<table class="tasks">
<thead><tr><th>Task</th><th>State</th><th>Posted by</th><th>Assignee</th><th>Needs</th><th>Text / result</th><th>Updated</th></tr></thead>
<tbody>
${tasks.map(row)}
</tbody>
</table>`,
});
