import * as z from "zod/mini";
import { type JobDetails, showJob } from "../../domain/automation/jobs.ts";
import type { RunView } from "../../domain/automation/views.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, type Paged } from "../kernel/paging.ts";
import { jobIdSchema, OWNER_ENV, OWNER_ERRORS, owner, ownerFields, runIdSchema, workerBaseUrl } from "./shared.ts";

export const showJobOptionsSchema = z.object({
  ...ownerFields,
  jobId: jobIdSchema.check(z.describe("the automation job")),
  runs: z
    ._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 10)
    .check(z.describe("how many recent runs one page shows, newest first (this command's --limit)")),
  cursor: cursorSchema,
  runId: z.optional(runIdSchema).check(z.describe("show only this run of the job (e.g. the id run-automation-job-cli printed)")),
});

export type ShowJobOptions = z.output<typeof showJobOptionsSchema>;

const NAME = "show-automation-job-cli";
type JobPage = JobDetails & Paged;

const runShowJob = async (options: ShowJobOptions, { ctx, ...deps }: DepsOf<"store">): Promise<JobPage> => {
  const query = { agentId: options.agentId, jobId: options.jobId, runId: options.runId };
  const at = options.cursor ? decodeCursor(NAME, query, options.cursor, ["number", "string"]) : undefined;
  const before = at ? { createdAt: at[0] as number, id: at[1] as string } : undefined;
  const r = await showJob(deps, {
    ...owner(options, deps),
    jobId: options.jobId,
    runs: options.runs,
    runId: options.runId,
    baseUrl: workerBaseUrl(ctx),
    before,
  });
  // Runs carry up to 8 KiB of output tails each: a page holds as many as the output budget allows, at least one.
  return fitPage(r.runs, (shown) => {
    const cut = r.runs.length - shown.length;
    const last = shown.at(-1);
    const more = cut > 0 || r.older_runs > 0;
    return {
      ...r,
      runs: [...shown],
      next_cursor: more && last ? encodeCursor(NAME, query, [Date.parse(last.created_at), last.id]) : null,
      not_shown: r.older_runs + cut,
    };
  });
};

const tail = (name: string, text: string | null): string[] =>
  text
    ? [
        `    ${name} (tail):`,
        ...text
          .trimEnd()
          .split("\n")
          .map((l) => `      | ${l}`),
      ]
    : [];

const runLines = (r: RunView): string[] => [
  `  ${r.id} ${r.state} · attempt ${r.attempt} · ${r.trigger_kind}${r.trigger_id ? ` ${r.trigger_id}` : ""} · created ${r.created_at}` +
    (r.duration_ms !== null ? ` · ${r.duration_ms} ms` : ""),
  ...(r.error
    ? [`    ${r.error_kind}: ${neutralizeLine(r.error)}${r.exit_code !== null ? ` (exit code ${r.exit_code})` : ""}`]
    : []),
  ...(r.emitted_count > 0 ? [`    emitted ${r.emitted_count} event(s)`] : []),
  ...tail("stdout", r.stdout_tail),
  ...tail("stderr", r.stderr_tail),
];

const render = (r: JobDetails): string =>
  [
    `${r.job.id} [${r.job.state}] "${neutralizeLine(r.job.label)}" owned by ${r.job.owner}`,
    `  dir ${neutralizeLine(r.job.dir)} · timeout ${r.job.timeout_seconds}s · wake on failure: ${r.job.wake_on_failure ? "yes" : "no"}`,
    `triggers (${r.triggers.length} active):`,
    ...r.triggers.map(
      (t) =>
        `  ${t.id} ${t.kind} fired ${t.fire_count}x${t.next_fire_at ? ` next ${t.next_fire_at}` : ""}${t.due_at ? ` due ${t.due_at}` : ""}`,
    ),
    `runs (${r.runs.length} shown, newest first):`,
    ...r.runs.flatMap(runLines),
  ].join("\n");

export default defineCommand({
  name: "show-automation-job-cli",
  summary: "one automation job with its active triggers and recent runs: state, attempt, error, exit code, timings, output tails",
  description:
    "Shows a job you own, its active triggers and its most recent runs, newest first. Each run: state (queued, running, " +
    "succeeded, failed, cancelled), attempt number (above 1 when a lost worker's run was rescued; attempts lists each " +
    "attempt's worker and outcome), trigger, error_kind (exception, exit, timeout, signal, job_dir_missing, spawn_failed, " +
    "worker_lost) with the error, exit code, signal, timings, how many events it emitted and the last 8 KiB of its stdout " +
    "and stderr. Script output is untrusted text: control characters are shown escaped. See create-automation-job-cli --help.",
  schema: showJobOptionsSchema,
  flags: { jobId: { aliases: ["--id", "--automation-job-id"] } },
  writes: "nothing.",
  output:
    '{"job":{"id","owner","label","dir","wake_on_failure","timeout_seconds","state","created_at","cancelled_at"},' +
    '"triggers":[{"id","kind",…}],"runs":[{"id","automation_job_id","state","attempt","trigger_kind","trigger_id","error_kind",' +
    '"error","exit_code","signal","emitted_count","created_at","started_at","finished_at","duration_ms","stdout_tail",' +
    '"stderr_tail","attempts":[{"attempt","worker_id","started_at","ended_at","outcome"}]}],"older_runs","next_cursor","not_shown"}',
  errors: [...OWNER_ERRORS, "NOT_FOUND", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV, "AGENT_COMPUTER_WORKER_URL"],
  examples: [
    "show-automation-job-cli --agent-id builder-1 --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e",
    "show-automation-job-cli --agent-id builder-1 --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e --run-id run_0193a1b2c3d4e5f60718293a4b5c6d7f --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runShowJob,
  render,
});
