import * as z from "zod/mini";
import { type CancelJobResult, cancelJob, previewCancelJob } from "../../domain/automation/jobs.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { confirmCommand, confirmOption, previewHeadline } from "../kernel/confirm.ts";
import { ownCredential } from "../kernel/credential.ts";
import { jobIdSchema, OWNER_ENV, OWNER_ERRORS, owner, ownerFields, ownerWords } from "./shared.ts";

export const cancelJobOptionsSchema = z.object({
  ...ownerFields,
  jobId: jobIdSchema.check(z.describe("the automation job to cancel")),
  confirm: confirmOption("cancel"),
});

export type CancelJobOptions = z.output<typeof cancelJobOptionsSchema>;
export type CancelJobOutput = CancelJobResult | (CancelJobResult & { preview: true; confirm_command: string });

const runCancelJob = async (options: CancelJobOptions, deps: DepsOf<"store">): Promise<CancelJobOutput> => {
  const call = { ...owner(options, deps), jobId: options.jobId };
  if (options.confirm) return cancelJob(deps, call);
  return {
    ...(await previewCancelJob(deps, call)),
    confirm_command: confirmCommand("cancel-automation-job-cli", ...ownerWords(options), "--job-id", options.jobId),
  };
};

const render = (r: CancelJobOutput): string => {
  const triggers = r.cancelled_triggers.join(", ") || "none";
  if ("preview" in r)
    return [
      previewHeadline(`cancel ${r.job.id}: no new runs would start`),
      `  triggers it would cancel: ${triggers}`,
      `  queued runs it would cancel: ${r.cancelled_queued_runs} (a run already in progress may finish)`,
      `to do it: ${r.confirm_command}`,
    ].join("\n");
  return [
    `cancelled ${r.job.id}: no new runs will start`,
    `  triggers cancelled with it: ${triggers}`,
    `  queued runs cancelled: ${r.cancelled_queued_runs} (a run already in progress may finish)`,
  ].join("\n");
};

export default defineCommand({
  name: "cancel-automation-job-cli",
  summary:
    "stop an automation job: its triggers and queued runs are cancelled, a running attempt may finish (preview unless --confirm)",
  description:
    "Cancels a job you own so that no new run starts: in the same transaction its active triggers (checkbacks, cron " +
    "schedules, webhook endpoints that name it) are cancelled and its queued runs are marked cancelled. An attempt that " +
    "is already running is allowed to finish and its result is recorded. Cancelling twice is a CONFLICT; there is no " +
    "un-cancel (register the directory again). See create-automation-job-cli --help.\n" +
    "Without --confirm this prints the triggers and the number of queued runs it would cancel and the exact command " +
    "with --confirm, and changes nothing (exit 0; an already cancelled job is CONFLICT here too).",
  schema: cancelJobOptionsSchema,
  flags: { jobId: { aliases: ["--id", "--automation-job-id"] } },
  writes:
    "with --confirm: the job's state (cancelled), its active triggers (cancelled) and its queued runs (cancelled); without: nothing.",
  output:
    '{"job":{"id",…,"state":"cancelled"},"cancelled_triggers":["cron_…"],"cancelled_queued_runs":0}; preview: the same ' +
    'with the job as it is, what would be cancelled, "preview":true and "confirm_command"',
  errors: [...OWNER_ERRORS, "NOT_FOUND", "CONFLICT", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: [
    "cancel-automation-job-cli --agent-id builder-1 --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e   # preview",
    "cancel-automation-job-cli --agent-id builder-1 --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e --confirm --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runCancelJob,
  render,
});
