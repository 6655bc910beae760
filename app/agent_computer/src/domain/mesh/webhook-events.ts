// The outbox side of outbound webhooks: an event for an agent is written, once per endpoint of its that receives
// that kind, inside the transaction that causes it (a delivery, an assignment, a failed run). So an event exists
// exactly when its cause committed; a send refused by policy delivers nothing and enqueues nothing. Payloads carry
// ids and names, never a message body, task text or script output: the receiver reads those with the CLIs.
import type { StoreTx, WebhookEventKind } from "../../store/port.ts";
import { iso } from "../deps.ts";
import { newId } from "../ids.ts";

/** The `type` field of each kind's payload (Standard Webhooks' dotted style). */
export const WEBHOOK_EVENT_TYPES: Record<WebhookEventKind, string> = {
  message: "message.received",
  task: "task.assigned",
  run_failed: "automation_run.failed",
};

/**
 * Enqueues `data` as a `kind` event for every active endpoint of `owner` that receives it; none, no write.
 * The body is Standard Webhooks' {type, timestamp, data}, fixed here so every retry sends the same bytes.
 */
export const enqueueWebhookEvent = async (
  tx: StoreTx,
  owner: string,
  kind: WebhookEventKind,
  data: Record<string, unknown>,
  now: number,
  /** The endpoints' read, when the caller sent it early beside another statement (deliver.ts). */
  subscribers: Promise<string[]> = tx.webhooks.subscribers(owner, kind),
): Promise<number> => {
  const endpoints = await subscribers;
  for (const endpointId of endpoints) {
    const id = newId("whevt");
    const payload = JSON.stringify({ type: WEBHOOK_EVENT_TYPES[kind], timestamp: iso(now), data: { agent_id: owner, ...data } });
    await tx.webhooks.insertEvent({ id, endpointId, type: WEBHOOK_EVENT_TYPES[kind], payload, createdAt: now }, now);
  }
  return endpoints.length;
};
