// Automation Jobs: each job with its newest runs — state, attempt, exit code, error, timings — and the end
// of each run's stdout and stderr.

import { commandLine } from "../command-line.ts";
import type { JobWithRuns } from "../domain/automation/overview.ts";
import type { JobView, RunView } from "../domain/automation/views.ts";
import { duration, lastChars, none, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";

/** Per tail on this page; the worker keeps more, and show-automation-job-cli prints all it keeps. */
export const TAIL_CHARS = 2000;

const badge = (state: string): Html => html`<span class="badge state-${state}">${state}</span>`;

const tail = (name: string, text: string | null): Html => html`<figure class="tail" data-field="${name}">
<figcaption>${name}</figcaption>
${text ? html`<div class="scroll"><pre>${lastChars(text, TAIL_CHARS)}</pre></div>` : html`<p class="empty">(empty)</p>`}
</figure>`;

const exit = (run: RunView): Html | string =>
  run.exit_code !== null ? String(run.exit_code) : run.signal ? `signal ${run.signal}` : none;

/** The command that prints all of a run, with its real owner, job and run ids. */
const inspectCommand = (job: JobView, run: RunView): string =>
  commandLine("show-automation-job-cli", "--agent-id", job.owner, "--job-id", job.id, "--run-id", run.id);

const runRows =
  (job: JobView) =>
  (run: RunView): Html =>
    html`<tbody class="run" data-run-id="${run.id}">
<tr>
<td data-field="run"><code>${run.id}</code></td>
<td data-field="state">${badge(run.state)}</td>
<td data-field="attempt" class="num">${run.attempt}</td>
<td data-field="trigger">${run.trigger_kind}</td>
<td data-field="exit_code" class="num">${exit(run)}</td>
<td data-field="error">${run.error ? html`<span class="error-kind">${run.error_kind}</span> ${run.error}` : none}</td>
<td data-field="started">${when(run.started_at ?? run.created_at)}</td>
<td data-field="duration" class="num">${duration(run.duration_ms)}</td>
</tr>
<tr class="tails"><td colspan="8"><div class="tails-grid">${tail("stdout", run.stdout_tail)}${tail("stderr", run.stderr_tail)}</div>
<p class="inspect" data-field="inspect">All of this run: <code>${inspectCommand(job, run)}</code></p></td></tr>
</tbody>`;

const jobSection = ({ job, runs }: JobWithRuns): Html => html`<section class="job" id="${job.id}" data-job-id="${job.id}">
<header class="job-head">
<h2>${job.label}</h2> ${badge(job.state)}
<dl class="facts">
<div><dt>id</dt><dd><code>${job.id}</code></dd></div>
<div><dt>owner</dt><dd>${job.owner}</dd></div>
<div><dt>directory</dt><dd><code>${job.dir}</code></dd></div>
<div><dt>timeout</dt><dd>${job.timeout_seconds} s</dd></div>
<div><dt>created</dt><dd>${when(job.created_at)}</dd></div>
</dl>
</header>
${
  runs.length === 0
    ? html`<p class="empty">No runs yet.</p>`
    : html`<table class="runs">
<thead><tr><th>Run</th><th>State</th><th>Attempt</th><th>Trigger</th><th>Exit</th><th>Error</th><th>Started</th><th>Duration</th></tr></thead>
${runs.map(runRows(job))}
</table>`
}
</section>`;

export const jobsPage = (jobs: JobWithRuns[], limits: { jobs: number; runsPerJob: number }): Page => ({
  title: "Automation jobs",
  body:
    jobs.length === 0
      ? html`<p class="empty">No automation jobs yet. <code>create-automation-job-cli --help</code> explains how to register one.</p>`
      : html`<p class="hint">The newest ${limits.jobs} jobs of every owner, each with its newest ${limits.runsPerJob} runs and the last
${TAIL_CHARS} characters of their output; under each run, the command that prints all of it.</p>
${jobs.map(jobSection)}`,
});
