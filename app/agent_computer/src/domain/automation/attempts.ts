// Fenced attempts: claiming (new runs and rescues of expired leases), heartbeats, the SDK's emitEvent and
// the final result. Every write names (run, attempt, lease token); a stale attempt's write is refused.
import { randomBytes } from "node:crypto";
import type { ClaimedRun, EnvEntry, Fence, JobRecord, RunOutcome, RunRecord, StoreTx } from "../../store/port.ts";
import { atOneInstant, type Deps, iso } from "../deps.ts";
import { lockAgentsInOrder } from "../mesh/lock-order.ts";
import { deliverSystemMessage } from "../mesh/notify.ts";
import { enqueueWebhookEvent } from "../mesh/webhook-events.ts";
import { EVENT_TYPES, jobSource, jsonEvent } from "./cloudevent.ts";
import { eventMessageBody } from "./fire.ts";

/** A worker lost this many times in a row ends the run as failed (worker_lost) instead of rescuing it again. */
export const MAX_ATTEMPTS = 3;
export const FAILURE_TAIL_CHARS = 2000;

export const mintLeaseToken = (): string => `lease_${randomBytes(24).toString("base64url")}`;

export interface ClaimedAttempt extends ClaimedRun {
  job: JobRecord;
  /** The owner's WorkerEnv as of this claim (read fresh for every attempt). */
  workerEnv: EnvEntry[];
}

export class FencedError extends Error {
  constructor(fence: Fence) {
    super(`attempt ${fence.attempt} of run ${fence.runId} no longer holds the run (a newer attempt took over, or it finished)`);
    this.name = "FencedError";
  }
}

const notifyFailure = async (
  tx: StoreTx,
  deps: Deps,
  run: RunRecord,
  outcome: Pick<RunOutcome, "errorKind" | "error" | "exitCode" | "signal" | "stderrTail">,
) => {
  const job = await tx.automation.getJob(run.jobId);
  if (!job) return;
  // The owner's webhooks hear of every failed run of its jobs (ids and the kind of failure; never output or error text).
  await enqueueWebhookEvent(
    tx,
    job.owner,
    "run_failed",
    {
      automation_job_id: job.id,
      label: job.label,
      run_id: run.id,
      attempt: run.attempt,
      error_kind: outcome.errorKind,
      exit_code: outcome.exitCode,
      signal: outcome.signal,
      failed_at: iso(deps.now()),
      inspect: `show-automation-job-cli --agent-id ${job.owner} --job-id ${job.id} --run-id ${run.id}`,
    },
    deps.now(),
  );
  if (!job.wakeOnFailure) return;
  const event = jsonEvent({
    id: `${run.id}:failed`,
    source: jobSource(job.id),
    type: EVENT_TYPES.failed,
    time: deps.now(),
    subject: run.id,
    data: {
      automation_job_id: job.id,
      label: job.label,
      run_id: run.id,
      attempt: run.attempt,
      error_kind: outcome.errorKind,
      error: outcome.error,
      exit_code: outcome.exitCode,
      signal: outcome.signal,
      stderr_tail: outcome.stderrTail.slice(-FAILURE_TAIL_CHARS),
      inspect: `show-automation-job-cli --agent-id ${job.owner} --job-id ${job.id} --run-id ${run.id}`,
    },
  });
  await deliverSystemMessage(tx, {
    recipient: job.owner,
    kind: "event",
    body: eventMessageBody(event),
    now: deps.now(),
    newId: deps.newId,
  });
};

/**
 * Ends runs that ran out of attempts, then claims up to `limit` runs (queued first, then expired leases).
 * Unless told that work exists (`hinted`), a cheap read first checks there is any, so idle polling never
 * takes the write lock.
 */
export const claimAttempts = async (
  live: Deps,
  input: { workerId: string; leaseMs: number; limit: number; hinted?: boolean },
): Promise<ClaimedAttempt[]> => {
  const deps = atOneInstant(live);
  if (!input.hinted && !(await deps.store.read((tx) => tx.automation.claimableRunExists(deps.now())))) return [];
  return deps.store.write(async (tx) => {
    const abandoned = await tx.automation.failAbandonedRuns(deps.now(), MAX_ATTEMPTS);
    // Their owners may each get a failure notice: several agents' inboxes, locked in the one order.
    await lockAgentsInOrder(
      tx,
      abandoned.map((run) => run.owner),
    );
    for (const lost of abandoned) {
      await notifyFailure(tx, deps, lost, { ...lost, stderrTail: lost.stderrTail ?? "" });
    }
    if (input.limit <= 0) return [];
    const claimed = await tx.automation.claimRuns({ ...input, now: deps.now(), newToken: mintLeaseToken });
    const result: ClaimedAttempt[] = [];
    for (const c of claimed) {
      const job = await tx.automation.getJob(c.run.jobId);
      if (job) result.push({ ...c, job, workerEnv: await tx.automation.listEnv(job.owner) });
    }
    return result;
  });
};

export const heartbeatAttempt = (deps: Deps, fence: Fence, leaseMs: number): Promise<boolean> =>
  deps.store.write((tx) => tx.automation.heartbeat(fence, deps.now() + leaseMs));

/** Records the script's result; a failed run wakes the owner when the job asked for it. False when fenced. */
export const finishAttempt = (live: Deps, fence: Fence, outcome: RunOutcome): Promise<boolean> => {
  const deps = atOneInstant(live);
  return deps.store.write(async (tx) => {
    if (!(await tx.automation.finishRun(fence, outcome))) return false;
    if (outcome.state === "failed") {
      const run = await tx.automation.getRun(fence.runId);
      if (run) await notifyFailure(tx, deps, run, outcome);
    }
    return true;
  });
};

/** Gives the run back (worker shutting down): another worker rescues it as a new attempt at once. */
export const releaseAttempt = (deps: Deps, fence: Fence): Promise<boolean> =>
  deps.store.write((tx) => tx.automation.releaseLease(fence, deps.now()));

export interface EmitReceipt {
  message_id: string;
  seq: number;
  delivered: boolean;
}

/** The SDK's emitEvent: an automation_job.emitted event in the owner's session, persisted before it returns. */
export const emitFromAttempt = (live: Deps, fence: Fence, payload: unknown): Promise<EmitReceipt> => {
  const deps = atOneInstant(live);
  return deps.store.write(async (tx) => {
    if (!(await tx.automation.recordEmit(fence))) throw new FencedError(fence);
    const run = (await tx.automation.getRun(fence.runId)) as RunRecord;
    const messageId = deps.newId("msg");
    const event = jsonEvent({
      id: messageId,
      source: jobSource(run.jobId),
      type: EVENT_TYPES.emitted,
      time: deps.now(),
      subject: run.id,
      data: payload,
      extensions: { runid: run.id, attempt: String(fence.attempt) },
    });
    const delivery = await deliverSystemMessage(tx, {
      recipient: run.owner,
      kind: "event",
      body: JSON.stringify(event),
      now: deps.now(),
      newId: deps.newId,
      messageId,
    });
    return { message_id: messageId, seq: delivery.seq, delivered: delivery.delivered };
  });
};
