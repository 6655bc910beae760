// Accepting one webhook delivery. A 2xx answer means the delivery is durable: its firing and its run (or the
// owner's wake message) are committed together. Rejected deliveries write nothing.

import { JsonTooDeep } from "../../json-depth.ts";
import type { TriggerRecord } from "../../store/port.ts";
import { atOneInstant, type Deps } from "../deps.ts";
import { type CloudEvent, webhookEvent } from "./cloudevent.ts";
import { fire } from "./fire.ts";
import { verifyDelivery } from "./webhook-verify.ts";

/** The largest per-endpoint body limit create-webhook-cli allows; the worker's server refuses anything bigger. */
export const MAX_WEBHOOK_BODY_BYTES = 4 * 1024 * 1024;

export interface DeliveryAnswer {
  status: number;
  body: Record<string, unknown>;
}

const reject = (status: number, error: string, message: string): DeliveryAnswer => ({ status, body: { error, message } });

/** The endpoint a request names, or the answer that ends it (unknown, or no longer active). */
export const findEndpoint = async (deps: Deps, endpointId: string): Promise<TriggerRecord | DeliveryAnswer> => {
  const trigger = /^hook_[0-9a-f]{32}$/.test(endpointId)
    ? await deps.store.read((tx) => tx.automation.getTrigger(endpointId))
    : undefined;
  if (trigger?.kind !== "webhook") return reject(404, "unknown_endpoint", "no webhook endpoint has this id");
  // 410 tells Standard Webhooks senders to stop delivering to this endpoint.
  if (trigger.state !== "active") return reject(410, "endpoint_cancelled", "this webhook endpoint was cancelled");
  return trigger;
};

export const tooLarge = (limit: number, size: number): DeliveryAnswer =>
  reject(413, "body_too_large", `the body is ${size} bytes; this endpoint accepts at most ${limit}`);

export const acceptDelivery = async (
  live: Deps,
  endpoint: TriggerRecord,
  request: { headers: Record<string, string>; body: Buffer },
): Promise<DeliveryAnswer> => {
  const deps = atOneInstant(live);
  const verdict = verifyDelivery(endpoint.provider ?? "standard", endpoint.secret ?? "", request.body, request.headers);
  if (!verdict.ok)
    return reject(
      verdict.reason === "missing_headers" || verdict.reason === "bad_delivery_id" ? 400 : 401,
      verdict.reason,
      verdict.message,
    );
  if (verdict.ping) return { status: 200, body: { ping: true, endpoint: endpoint.id } };
  let event: CloudEvent;
  try {
    event = webhookEvent({
      triggerId: endpoint.id,
      deliveryId: verdict.deliveryId,
      time: deps.now(),
      body: request.body.toString("utf8"),
      contentType: request.headers["content-type"] ?? null,
      extensions: verdict.extensions,
    });
  } catch (error) {
    // Never a 5xx: the same body would be refused on every retry.
    if (error instanceof JsonTooDeep)
      return reject(400, "body_too_deep", `the body nests arrays and objects deeper than ${error.limit} levels`);
    throw error;
  }
  return deps.store.write(async (tx) => {
    const current = await tx.automation.getTrigger(endpoint.id, true);
    if (current?.state !== "active") return reject(410, "endpoint_cancelled", "this webhook endpoint was cancelled");
    const result = await fire(tx, deps, {
      trigger: current,
      fireKey: verdict.deliveryId,
      scheduledFor: null,
      skippedTicks: 0,
      event,
    });
    if (result.outcome === "duplicate")
      return { status: 200, body: { accepted: true, duplicate: true, delivery_id: verdict.deliveryId } };
    await tx.automation.countWebhookDelivery(endpoint.id, deps.now());
    if (result.outcome === "run") await tx.automation.hintWorkers();
    return {
      status: 202,
      body: {
        accepted: true,
        duplicate: false,
        delivery_id: verdict.deliveryId,
        run_id: result.outcome === "run" ? result.runId : null,
        message_id: result.outcome === "wake" ? result.messageId : null,
      },
    };
  });
};
