import * as z from "zod/mini";
import { commandLine } from "../../command-line.ts";
import { listJobs } from "../../domain/automation/jobs.ts";
import type { JobView } from "../../domain/automation/views.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, limitSchema, type Paged } from "../kernel/paging.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields, ownerWords } from "./shared.ts";

export const listJobsOptionsSchema = z.object({
  ...ownerFields,
  limit: limitSchema(50, 500, "jobs, newest first,"),
  cursor: cursorSchema,
});

const NAME = "list-automation-jobs-cli";

export type ListJobsOptions = z.output<typeof listJobsOptionsSchema>;

type JobsPage = { jobs: JobView[] } & Paged;

const runListJobs = async (options: ListJobsOptions, deps: DepsOf<"store">): Promise<JobsPage> => {
  const query = { agentId: options.agentId };
  const at = options.cursor ? decodeCursor(NAME, query, options.cursor, ["number", "string"]) : undefined;
  const before = at ? { createdAt: at[0] as number, id: at[1] as string } : undefined;
  const r = await listJobs(deps, { ...owner(options, deps), limit: options.limit, before });
  return fitPage(r.jobs, (shown) => {
    const cut = r.jobs.length - shown.length;
    const last = shown.at(-1);
    const more = cut > 0 || r.older_jobs > 0;
    return {
      jobs: [...shown],
      next_cursor: more && last ? encodeCursor(NAME, query, [Date.parse(last.created_at), last.id]) : null,
      not_shown: r.older_jobs + cut,
    };
  });
};

const render = (r: JobsPage, options: ListJobsOptions): string =>
  [
    `${r.jobs.length} automation job(s)`,
    ...r.jobs.flatMap((j) => [
      `${j.id} [${j.state}] "${neutralizeLine(j.label)}" ${neutralizeLine(j.dir)} · timeout ${j.timeout_seconds}s${j.wake_on_failure ? " · wakes on failure" : ""}`,
      `  show: ${commandLine("show-automation-job-cli", ...ownerWords(options), "--job-id", j.id)}`,
    ]),
  ].join("\n");

export default defineCommand({
  name: "list-automation-jobs-cli",
  summary: "list your automation jobs, newest first",
  description:
    "Lists the automation jobs you own (active and cancelled), newest first. For one job's triggers and recent runs use " +
    "show-automation-job-cli (the text output here prints that command under each job); the whole lifecycle is in " +
    "create-automation-job-cli --help.",
  schema: listJobsOptionsSchema,
  writes: "nothing.",
  output:
    '{"jobs":[{"id","owner","label","dir","wake_on_failure","timeout_seconds","state":"active|cancelled","created_at","cancelled_at"}],' +
    '"next_cursor","not_shown"}',
  errors: [...OWNER_ERRORS, ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: ["list-automation-jobs-cli --agent-id builder-1", "list-automation-jobs-cli --agent-id builder-1 --limit 5 --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runListJobs,
  render,
});
