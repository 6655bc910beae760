import * as z from "zod/mini";
import { CRON_FORMS, CRON_POLICY, MISFIRE_WINDOW_DEFAULT_SECONDS } from "../../domain/automation/cron.ts";
import { createCronSchedule } from "../../domain/automation/triggers.ts";
import type { TriggerView } from "../../domain/automation/views.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { jobIdSchema, labelSchema, OWNER_ENV, OWNER_ERRORS, owner, ownerFields, workerBaseUrl } from "./shared.ts";
import { triggerLine } from "./trigger-render.ts";

export const cronOptionsSchema = z.object({
  ...ownerFields,
  cron: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, "must not be empty"),
      z.maxLength(200, "must be at most 200 characters"),
      z.describe(`${CRON_FORMS}; names (MON, JAN), lists, ranges and */n steps allowed`),
    ),
  tz: z
    ._default(z.string().check(z.minLength(1, "must not be empty"), z.maxLength(64, "must be at most 64 characters")), "UTC")
    .check(z.describe("IANA time zone the fields are read in, e.g. Europe/Berlin")),
  misfireWindowSeconds: z
    ._default(
      z.coerce
        .number({ error: "must be a whole number of seconds" })
        .check(
          z.int("must be a whole number of seconds"),
          z.minimum(10, "must be at least 10 seconds"),
          z.maximum(31 * 86_400, "must be at most 2678400 seconds (31 days)"),
        ),
      MISFIRE_WINDOW_DEFAULT_SECONDS,
    )
    .check(
      z.describe("after downtime, the most recent missed tick still fires if it is at most this old (see the misfire policy)"),
    ),
  jobId: z.optional(jobIdSchema).check(z.describe("run this job on every tick; without it each tick's event wakes you (inbox)")),
  label: z.optional(labelSchema).check(z.describe("one line carried in the event (data.label)")),
});

export type CronOptions = z.output<typeof cronOptionsSchema>;
type CronResult = TriggerView & { upcoming: string[] };

const runCron = async (options: CronOptions, { ctx, ...deps }: DepsOf<"store">): Promise<CronResult> =>
  createCronSchedule(deps, {
    ...owner(options, deps),
    cron: options.cron,
    tz: options.tz,
    misfireWindowSeconds: options.misfireWindowSeconds,
    jobId: options.jobId,
    label: options.label,
    baseUrl: workerBaseUrl(ctx),
  });

export default defineCommand({
  name: "create-cron-schedule-cli",
  summary: "a recurring schedule (cron, time-zone aware): each tick runs an automation job or wakes you with an event",
  description:
    "Creates a cron schedule. On each tick agent-computer-worker consumes it exactly once per (schedule, tick), enforced by " +
    "the store even with several workers: with --automation-job-id one run of the job starts (context().event has type " +
    "cron.tick and data {schedule_id, label, cron, tz, scheduled_for, skipped_ticks}); without it the same CloudEvents " +
    "envelope is appended to your inbox. Ticks are not skipped because a run is still going: runs may overlap; a script that " +
    `must not overlap should check for itself.\n${CRON_POLICY}\n` +
    "The output lists the next ticks (upcoming) so you can check the expression. Cancel with cancel-trigger-cli. Jobs: " +
    "create-automation-job-cli --help.",
  schema: cronOptionsSchema,
  flags: {
    jobId: { aliases: ["--automation-job-id"] },
    cron: { placeholder: "<expression>" },
    tz: { placeholder: "<iana-zone>" },
  },
  writes: "one cron schedule (expression, zone, misfire window, next tick in UTC, optional job).",
  output:
    '{"id":"cron_…","kind":"cron","label","automation_job_id","state":"active","cron","tz","next_fire_at",' +
    '"misfire_window_seconds","skipped_count","fire_count","last_fired_at","created_at","ended_at","upcoming":["…"]}',
  errors: [...OWNER_ERRORS, "NOT_FOUND", "CONFLICT", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: [
    "create-cron-schedule-cli --agent-id builder-1 --cron '0 9 * * 1-5' --tz Europe/Berlin --label 'standup digest'",
    "create-cron-schedule-cli --agent-id builder-1 --cron '*/15 * * * *' --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runCron,
  render: (r: CronResult) => `${triggerLine(r)}\n  upcoming: ${r.upcoming.join(", ")}`,
});
