// A test trigger: one manual event with the caller's data and exactly one run, so every SDK branch can be
// exercised after registration and the durable run inspected.
import { AppError } from "../../errors.ts";
import type { Deps } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { EVENT_TYPES, jobSource, jsonEvent } from "./cloudevent.ts";
import { type OwnerCall, ownedJob } from "./jobs.ts";

/** A worker that heartbeated within this window counts as running. */
export const WORKER_SEEN_WINDOW_MS = 30_000;

export interface ManualRunResult {
  run_id: string;
  automation_job_id: string;
  event_id: string;
  live_workers: number;
}

export const startManualRun = (deps: Deps, input: OwnerCall & { jobId: string; data: unknown }): Promise<ManualRunResult> =>
  deps.store.write(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const job = await ownedJob(tx, input.agentId, input.jobId);
    if (job.state !== "active") throw new AppError("CONFLICT", `automation job ${job.id} is cancelled`);
    const runId = deps.newId("run");
    const event = jsonEvent({
      id: runId,
      source: jobSource(job.id),
      type: EVENT_TYPES.manual,
      time: deps.now(),
      subject: runId,
      data: input.data,
    });
    await tx.automation.insertRun({
      id: runId,
      jobId: job.id,
      owner: job.owner,
      triggerId: null,
      triggerKind: "manual",
      fireKey: null,
      event: JSON.stringify(event),
      createdAt: deps.now(),
    });
    await tx.automation.hintWorkers();
    const workers = await tx.automation.liveWorkers(deps.now() - WORKER_SEEN_WINDOW_MS);
    return { run_id: runId, automation_job_id: job.id, event_id: event.id, live_workers: workers.length };
  });
