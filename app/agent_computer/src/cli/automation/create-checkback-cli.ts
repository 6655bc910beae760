import * as z from "zod/mini";
import { createCheckback } from "../../domain/automation/triggers.ts";
import type { TriggerView } from "../../domain/automation/views.ts";
import { AppError, STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { durationSchema } from "./duration.ts";
import { jobIdSchema, labelSchema, OWNER_ENV, OWNER_ERRORS, owner, ownerFields, workerBaseUrl } from "./shared.ts";
import { triggerLine } from "./trigger-render.ts";

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
const PAST_TOLERANCE_MS = 60_000;
/** How far ahead a checkback may be due, whether given with --at or --in. */
const MAX_AHEAD_DAYS = 366;
const MAX_AHEAD_MS = MAX_AHEAD_DAYS * 86_400_000;

/**
 * What is wrong with the calendar fields of an --at that has the ISO shape, or undefined. Date.parse rolls an
 * impossible date over (February 30 becomes March 2) instead of refusing it, so the fields are checked first.
 */
const calendarProblem = (at: string): string | undefined => {
  const f = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/.exec(at)?.slice(1);
  if (!f) return undefined;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = f.map((v) => Number(v ?? 0)) as number[];
  const two = (n: number | undefined) => String(n).padStart(2, "0");
  if (!month || month > 12) return `month ${two(month)} does not exist (01-12)`;
  const days = new Date(Date.UTC(year as number, month, 0)).getUTCDate();
  if (!day || day > days) return `day ${two(day)} does not exist in ${year}-${two(month)} (it has ${days} days)`;
  if ((hour as number) > 23 || (minute as number) > 59 || (second as number) > 59)
    return "the time of day is out of range (00:00:00-23:59:59)";
  if ((offsetHours as number) > 23 || (offsetMinutes as number) > 59) return "the zone offset is out of range";
  return undefined;
};

export const checkbackOptionsSchema = z
  .object({
    ...ownerFields,
    at: z
      .optional(z.string().check(z.regex(ISO_WITH_ZONE, "must be an ISO 8601 time with a zone, e.g. 2099-12-01T09:00:00Z")))
      .check(z.describe(`when it is due: a real date and time, at most ${MAX_AHEAD_DAYS} days ahead (as for --in)`)),
    in: z
      .optional(durationSchema)
      .check(z.describe(`due after this long from now, e.g. 90s, 15m, 2h30m, 1d (at most ${MAX_AHEAD_DAYS}d, as for --at)`)),
    jobId: z.optional(jobIdSchema).check(z.describe("run this job when due; without it the checkback event wakes you (inbox)")),
    note: z.optional(labelSchema).check(z.describe("one line carried in the event (data.note): what to check back on")),
  })
  .check(
    z.superRefine((o, ctx) => {
      if ((o.at === undefined) === (o.in === undefined))
        ctx.addIssue({ code: "custom", path: ["at"], message: "give exactly one of --at or --in" });
    }),
  );

export type CheckbackOptions = z.output<typeof checkbackOptionsSchema>;

export const runCheckback = async (options: CheckbackOptions, { ctx, ...deps }: DepsOf<"store">): Promise<TriggerView> => {
  const now = ctx.now();
  const problem = options.at !== undefined ? calendarProblem(options.at) : undefined;
  if (problem) throw new AppError("INVALID_INPUT", `--at: ${options.at} is not a real time: ${problem}`);
  const dueAt = options.at !== undefined ? Date.parse(options.at) : now + (options.in as number) * 1000;
  if (Number.isNaN(dueAt)) throw new AppError("INVALID_INPUT", `--at: not a valid time (got ${JSON.stringify(options.at)})`);
  if (dueAt < now - PAST_TOLERANCE_MS) throw new AppError("INVALID_INPUT", `--at: ${options.at} is in the past`);
  // One bound for both ways of saying when (NaN and Infinity fail it too).
  if (!(dueAt <= now + MAX_AHEAD_MS)) {
    throw new AppError(
      "INVALID_INPUT",
      options.at !== undefined
        ? `--at: ${options.at} is more than ${MAX_AHEAD_DAYS} days ahead`
        : `--in: must be at most ${MAX_AHEAD_DAYS} days`,
    );
  }
  return createCheckback(deps, {
    ...owner(options, deps),
    dueAt,
    jobId: options.jobId,
    note: options.note,
    baseUrl: workerBaseUrl(ctx),
  });
};

export default defineCommand({
  name: "create-checkback-cli",
  summary: "a one-shot timer: at a time, wake yourself with an event or run an automation job",
  description:
    "Creates a checkback: a one-shot trigger due at --at (ISO time with a zone) or after --in (a duration). When it is " +
    "due, agent-computer-worker consumes it exactly once: with --automation-job-id it starts one run of that job (the " +
    "script's context().event has type checkback.due and data {checkback_id, note, due_at}); without it the same " +
    "CloudEvents envelope is appended to your inbox as an event (read it with agent-inbox-cli). Consuming the checkback " +
    "and creating its run (or your event) happen in one transaction, so even several workers fire it exactly once. " +
    "If no worker runs at the due time it fires when one starts. Cancel with cancel-trigger-cli; list with list-triggers-cli. " +
    "An event in your inbox is only shown to a live check-in (agent-checkin-cli --help). Jobs: create-automation-job-cli --help.",
  schema: checkbackOptionsSchema,
  flags: { jobId: { aliases: ["--automation-job-id"] }, at: { placeholder: "<iso-time>" }, in: { placeholder: "<duration>" } },
  writes: "one checkback trigger (owner, due time, optional job, note).",
  output:
    '{"id":"chk_…","kind":"checkback","label":<note>,"automation_job_id","state":"active","due_at","fire_count":0,"last_fired_at":null,"created_at","ended_at":null}',
  errors: [...OWNER_ERRORS, "NOT_FOUND", "CONFLICT", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: [
    "create-checkback-cli --agent-id builder-1 --in 45m --note 'is CI green on PR 12?'",
    "create-checkback-cli --agent-id builder-1 --at \"$(date -d 'tomorrow 09:00' +%Y-%m-%dT%H:%M:%S%:z)\" --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runCheckback,
  render: triggerLine,
});
