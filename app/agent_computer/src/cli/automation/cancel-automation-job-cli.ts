import * as z from "zod/mini";
import { type CancelJobResult, cancelJob } from "../../domain/automation/jobs.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { jobIdSchema, OWNER_ENV, OWNER_ERRORS, owner, ownerFields } from "./shared.ts";

export const cancelJobOptionsSchema = z.object({
  ...ownerFields,
  jobId: jobIdSchema.check(z.describe("the automation job to cancel")),
});

export type CancelJobOptions = z.output<typeof cancelJobOptionsSchema>;

const runCancelJob = async (options: CancelJobOptions, deps: DepsOf<"store">): Promise<CancelJobResult> =>
  cancelJob(deps, { ...owner(options, deps), jobId: options.jobId });

const render = (r: CancelJobResult): string =>
  [
    `cancelled ${r.job.id}: no new runs will start`,
    `  triggers cancelled with it: ${r.cancelled_triggers.join(", ") || "none"}`,
    `  queued runs cancelled: ${r.cancelled_queued_runs} (a run already in progress may finish)`,
  ].join("\n");

export default defineCommand({
  name: "cancel-automation-job-cli",
  summary: "stop an automation job: its triggers and queued runs are cancelled, a running attempt may finish",
  description:
    "Cancels a job you own so that no new run starts: in the same transaction its active triggers (checkbacks, cron " +
    "schedules, webhook endpoints that name it) are cancelled and its queued runs are marked cancelled. An attempt that " +
    "is already running is allowed to finish and its result is recorded. Cancelling twice is a CONFLICT; there is no " +
    "un-cancel (register the directory again). See create-automation-job-cli --help.",
  schema: cancelJobOptionsSchema,
  flags: { jobId: { aliases: ["--id", "--automation-job-id"] } },
  writes: "the job's state (cancelled), its active triggers (cancelled) and its queued runs (cancelled).",
  output: '{"job":{"id",…,"state":"cancelled"},"cancelled_triggers":["cron_…"],"cancelled_queued_runs":0}',
  errors: [...OWNER_ERRORS, "NOT_FOUND", "CONFLICT", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: ["cancel-automation-job-cli --agent-id builder-1 --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e"],
  needs: { deps: "store", credential: ownCredential },
  run: runCancelJob,
  render,
});
