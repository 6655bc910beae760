import * as z from "zod/mini";
import { commandLine } from "../../command-line.ts";
import { type ManualRunResult, startManualRun } from "../../domain/automation/manual-run.ts";
import type { RunView } from "../../domain/automation/views.ts";
import { runView } from "../../domain/automation/views.ts";
import { AppError, STORE_ERRORS } from "../../errors.ts";
import { JsonTooDeep, MAX_JSON_DEPTH, parseJson } from "../../json-depth.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/command-context.ts";
import { ownCredential } from "../kernel/credential.ts";
import { readFlagInput } from "../kernel/input.ts";
import { jobIdSchema, OWNER_ENV, OWNER_ERRORS, owner, ownerFields, ownerWords } from "./shared.ts";

const MAX_DATA_BYTES = 262_144;
const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

export const runJobOptionsSchema = z.object({
  ...ownerFields,
  jobId: jobIdSchema.check(z.describe("the automation job to run once")),
  dataFile: z
    .optional(z.string().check(z.minLength(1)))
    .check(
      z.describe(
        `JSON file (or - for stdin) that becomes the event's data, at most 256 KiB nested at most ${MAX_JSON_DEPTH} levels; default null`,
      ),
    ),
  waitSeconds: z
    ._default(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(3600)), 0)
    .check(z.describe("wait up to this long for the run to end and print it; a failed or cancelled run exits 4 (RUN_FAILED)")),
});

export type RunJobOptions = z.output<typeof runJobOptionsSchema>;
export type RunJobResult = ManualRunResult & { run?: RunView; note?: string };

const readData = async (options: RunJobOptions, ctx: CommandContext): Promise<unknown> => {
  if (options.dataFile === undefined) return null;
  const text = await readFlagInput(ctx, "--data-file", options.dataFile, MAX_DATA_BYTES);
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof JsonTooDeep)
      throw new AppError("INVALID_INPUT", `--data-file: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
    throw new AppError("INVALID_INPUT", "--data-file: not valid JSON");
  }
};

/** The command that shows this run, with every flag it needs. */
const inspectLine = (options: RunJobOptions, runId: string): string =>
  commandLine("show-automation-job-cli", ...ownerWords(options), "--job-id", options.jobId, "--run-id", runId);

/** A run awaited with --wait-seconds that ended other than succeeded: exit 4, the run in the error's details. */
const runFailed = (run: RunView, options: RunJobOptions): AppError =>
  new AppError(
    "RUN_FAILED",
    `run ${run.id} of ${options.jobId} ended ${run.state}${run.error ? ` (${run.error_kind ?? "error"}: ${run.error})` : ""}` +
      `${run.exit_code !== null ? `, exit code ${run.exit_code}` : ""}`,
    {
      hint: `inspect it: ${inspectLine(options, run.id)}`,
      details: { run_id: run.id, state: run.state, run },
    },
  );

export const runRunJob = async (options: RunJobOptions, { ctx, ...deps }: DepsOf<"store">): Promise<RunJobResult> => {
  const data = await readData(options, ctx);
  const started = await startManualRun(deps, { ...owner(options, deps), jobId: options.jobId, data });
  const note =
    started.live_workers === 0
      ? "no agent-computer-worker was seen in the last 30 s: the run stays queued until one runs"
      : undefined;
  if (options.waitSeconds === 0) return { ...started, ...(note ? { note } : {}) };
  const deadline = Date.now() + options.waitSeconds * 1000;
  for (;;) {
    const run = await deps.store.read((tx) => tx.automation.getRun(started.run_id));
    if (run && TERMINAL.has(run.state)) {
      if (run.state !== "succeeded") throw runFailed(runView(run), options);
      return { ...started, run: runView(run) };
    }
    if (Date.now() >= deadline) {
      throw new AppError("TIMEOUT", `run ${started.run_id} did not end within ${options.waitSeconds} s (state ${run?.state})`, {
        hint: `${note ? `${note}; ` : ""}inspect it later: ${inspectLine(options, started.run_id)}`,
        details: { run_id: started.run_id },
      });
    }
    await Bun.sleep(100);
  }
};

const render = (r: RunJobResult, options: RunJobOptions): string =>
  [
    `run ${r.run_id} of ${r.automation_job_id}${r.run ? `: ${r.run.state}${r.run.error ? ` (${r.run.error_kind}: ${r.run.error})` : ""}` : " queued"}`,
    ...(r.note ? [`  note: ${r.note}`] : []),
    `  inspect: ${inspectLine(options, r.run_id)}`,
  ].join("\n");

export default defineCommand({
  name: "run-automation-job-cli",
  summary: "a test trigger: one manual event with your data, exactly one run of the job; prints the run id",
  description:
    "Starts one run of a job you own with a manual event: type automation_job.test, id = the run id, data = the JSON of " +
    "--data-file (or null). Use it after registering to exercise every SDK branch of the script, then inspect the durable " +
    "run (state, error, exit code, output tails, events emitted) with the show-automation-job-cli line it prints. " +
    "The run is executed by agent-computer-worker like any other (it must be running on a host sharing the store; the " +
    "output says when none was seen). --wait-seconds waits for the run to end: a run that succeeded is printed with the " +
    "result (exit 0); a run that ended failed or cancelled gives RUN_FAILED (exit 4: the run's outcome is not the one " +
    "asked for; exit 1 stays reserved for a bug in this tool) with run_id, state and the whole run in the error; a run " +
    "still going at the deadline gives TIMEOUT (exit 7) but stays queued or running. Calling this twice starts two runs. " +
    "The whole lifecycle: create-automation-job-cli --help.",
  schema: runJobOptionsSchema,
  flags: { jobId: { aliases: ["--id", "--automation-job-id"] }, dataFile: { placeholder: "<path|->" } },
  writes: "one queued run of the job carrying the manual event.",
  output:
    '{"run_id","automation_job_id","event_id","live_workers","note"?,"run"?:{"id","state","attempt","error_kind","error","exit_code",…}}',
  errors: [...OWNER_ERRORS, "NOT_FOUND", "CONFLICT", "RUN_FAILED", "TIMEOUT", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: [
    "run-automation-job-cli --agent-id builder-1 --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e",
    "echo '{\"pr\":12}' | run-automation-job-cli --agent-id builder-1 --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e --data-file - --wait-seconds 60 --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runRunJob,
  render,
});
