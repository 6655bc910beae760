// Consuming a trigger: the firing record, and the durable run (trigger with a job) or the wake message to
// the owner (trigger without one), written in the caller's transaction. The firings primary key makes a
// second consumption of the same (trigger, fire key) a no-op, whoever attempts it.
import type { StoreTx, TriggerRecord } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { deliverSystemMessage } from "../mesh/notify.ts";
import type { CloudEvent } from "./cloudevent.ts";

export interface Firing {
  trigger: TriggerRecord;
  fireKey: string;
  scheduledFor: number | null;
  skippedTicks: number;
  event: CloudEvent;
}

export type FireResult =
  | { outcome: "run"; runId: string }
  | { outcome: "wake"; messageId: string; delivered: boolean }
  | { outcome: "job_cancelled" }
  | { outcome: "duplicate" };

const MAX_WAKE_BODY = 65_536;

/** The event as the wake message body; oversized data is replaced by a note so the message stays readable. */
export const eventMessageBody = (event: CloudEvent): string => {
  const body = JSON.stringify(event);
  if (Buffer.byteLength(body, "utf8") <= MAX_WAKE_BODY) return body;
  return JSON.stringify({ ...event, data: { truncated: true, bytes: Buffer.byteLength(JSON.stringify(event.data), "utf8") } });
};

/** The caller hints workers (once per transaction) when a run was created. */
export const fire = async (tx: StoreTx, deps: Deps, f: Firing): Promise<FireResult> => {
  const base = {
    triggerId: f.trigger.id,
    fireKey: f.fireKey,
    scheduledFor: f.scheduledFor,
    skippedTicks: f.skippedTicks,
    firedAt: deps.now(),
  };
  const job = f.trigger.jobId ? await tx.automation.getJob(f.trigger.jobId) : undefined;
  if (job && job.state !== "active") {
    await tx.automation.recordFiring({ ...base, outcome: "job_cancelled", runId: null, messageId: null });
    return { outcome: "job_cancelled" };
  }
  if (job) {
    const runId = deps.newId("run");
    if (!(await tx.automation.recordFiring({ ...base, outcome: "run", runId, messageId: null }))) return { outcome: "duplicate" };
    await tx.automation.insertRun({
      id: runId,
      jobId: job.id,
      owner: job.owner,
      triggerId: f.trigger.id,
      triggerKind: f.trigger.kind,
      fireKey: f.fireKey,
      event: JSON.stringify(f.event),
      createdAt: deps.now(),
    });
    return { outcome: "run", runId };
  }
  const messageId = deps.newId("msg");
  if (!(await tx.automation.recordFiring({ ...base, outcome: "wake", runId: null, messageId }))) return { outcome: "duplicate" };
  const delivery = await deliverSystemMessage(tx, {
    recipient: f.trigger.owner,
    kind: "event",
    body: eventMessageBody(f.event),
    now: deps.now(),
    newId: deps.newId,
    messageId,
  });
  return { outcome: "wake", messageId, delivered: delivery.delivered };
};
