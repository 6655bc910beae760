import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { JobRecord, StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { resolveJobDir } from "./job-dir.ts";
import { type JobView, jobView, type RunView, runView, type TriggerView, triggerView } from "./views.ts";

export interface OwnerCall {
  agentId: string;
  token: string | undefined;
}

/** A job of this owner, or NOT_FOUND (another agent's job is reported as absent, not as forbidden). */
export const ownedJob = async (tx: StoreTx, owner: string, jobId: string): Promise<JobRecord> => {
  const job = await tx.automation.getJob(jobId);
  if (!job || job.owner !== owner) {
    throw new AppError("NOT_FOUND", `no automation job ${jobId} owned by ${owner}`, {
      hint: `${commandLine("list-automation-jobs-cli", "--agent-id", owner)} lists yours`,
    });
  }
  return job;
};

export const createJob = async (
  deps: Deps,
  input: OwnerCall & { dir: string; label: string; wakeOnFailure: boolean; timeoutSeconds: number; cwd?: string },
): Promise<JobView & { entry: string }> => {
  const resolved = resolveJobDir(input.dir, input.cwd);
  if (!resolved.ok) throw new AppError("INVALID_INPUT", `--dir: ${resolved.problem}`);
  const job: JobRecord = {
    id: deps.newId("job"),
    owner: input.agentId,
    label: input.label,
    dir: resolved.dir,
    wakeOnFailure: input.wakeOnFailure,
    timeoutSeconds: input.timeoutSeconds,
    state: "active",
    createdAt: deps.now(),
    cancelledAt: null,
  };
  await deps.store.write(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    await tx.automation.insertJob(job);
  });
  return { ...jobView(job), entry: resolved.entry };
};

/** A place in a newest-first list: the last row of the page before (created_at, id). */
export type Before = { createdAt: number; id: string } | undefined;

/** The owner's jobs, newest first (older than `before`), and how many older ones the page left out. */
export const listJobs = (
  deps: Deps,
  input: OwnerCall & { limit: number; before?: Before },
): Promise<{ jobs: JobView[]; older_jobs: number }> =>
  deps.store.read(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const found = await tx.automation.listJobs(input.agentId, input.limit + 1, input.before);
    const page = found.slice(0, input.limit);
    const last = page.at(-1);
    const older = found.length > input.limit && last ? await tx.automation.countJobs(input.agentId, last) : 0;
    return { jobs: page.map(jobView), older_jobs: older };
  });

export interface JobDetails {
  job: JobView;
  triggers: TriggerView[];
  runs: RunView[];
  /** How many of the job's runs are older than the last one shown. */
  older_runs: number;
}

export const showJob = (
  deps: Deps,
  input: OwnerCall & { jobId: string; runs: number; runId?: string | undefined; baseUrl: string; before?: Before },
): Promise<JobDetails> =>
  deps.store.read(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const job = await ownedJob(tx, input.agentId, input.jobId);
    const triggers = (await tx.automation.listTriggers(input.agentId, false, 500)).filter((t) => t.jobId === job.id);
    const found = await tx.automation.runsOfJob(job.id, input.runs + 1, input.before);
    let runs = found.slice(0, input.runs);
    const last = runs.at(-1);
    let older = found.length > input.runs && last ? await tx.automation.countRunsOfJob(job.id, last) : 0;
    if (input.runId !== undefined) {
      older = 0;
      const run = await tx.automation.getRun(input.runId);
      if (!run || run.jobId !== job.id) throw new AppError("NOT_FOUND", `no run ${input.runId} of job ${job.id}`);
      runs = [run];
    }
    const views: RunView[] = [];
    for (const run of runs) views.push(runView(run, await tx.automation.attemptsOf(run.id)));
    return { job: jobView(job), triggers: triggers.map((t) => triggerView(t, input.baseUrl)), runs: views, older_runs: older };
  });

export interface CancelJobResult {
  job: JobView;
  cancelled_triggers: string[];
  cancelled_queued_runs: number;
}

const alreadyCancelled = (job: JobRecord): AppError => new AppError("CONFLICT", `automation job ${job.id} is already cancelled`);

/** What cancelJob would change now, from one read (the same answers, CONFLICT included); changes nothing. */
export const previewCancelJob = (
  deps: Deps,
  input: OwnerCall & { jobId: string },
): Promise<CancelJobResult & { preview: true }> =>
  deps.store.read(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const job = await ownedJob(tx, input.agentId, input.jobId);
    if (job.state !== "active") throw alreadyCancelled(job);
    return {
      job: jobView(job),
      cancelled_triggers: await tx.automation.activeTriggerIdsOf(job.id),
      cancelled_queued_runs: await tx.automation.queuedRunCount(job.id),
      preview: true as const,
    };
  });

/** Stops future runs: the job, its active triggers and its queued runs are cancelled together; a running attempt finishes. */
export const cancelJob = (deps: Deps, input: OwnerCall & { jobId: string }): Promise<CancelJobResult> =>
  deps.store.write(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const job = await ownedJob(tx, input.agentId, input.jobId);
    if (!(await tx.automation.cancelJob(job.id, deps.now()))) throw alreadyCancelled(job);
    const cancelledTriggers = await tx.automation.cancelTriggers({ jobId: job.id }, deps.now());
    const cancelledRuns = await tx.automation.cancelQueuedRuns(job.id, deps.now());
    return {
      job: jobView({ ...job, state: "cancelled", cancelledAt: deps.now() }),
      cancelled_triggers: cancelledTriggers,
      cancelled_queued_runs: cancelledRuns,
    };
  });
