// The webhook receiver: POST /hooks/<endpoint-id>. Size is checked before the body is read (Content-Length)
// and after; the signature is checked over the raw bytes; only then is the delivery consumed.
import { acceptDelivery, findEndpoint, MAX_WEBHOOK_BODY_BYTES, tooLarge } from "../domain/automation/webhook-accept.ts";
import { errorText } from "../errors.ts";
import type { WorkerContext } from "./worker-context.ts";
import { json, type RouteHandler, type WorkerService } from "./worker-service.ts";

const receive =
  (ctx: WorkerContext, accepting: () => boolean): RouteHandler =>
  async (request) => {
    const log = ctx.log.child("webhooks");
    const endpointId = request.params.id ?? "";
    if (!accepting())
      return json(503, { error: "shutting_down", message: "the worker is stopping; retry" }, { "retry-after": "5" });
    try {
      const endpoint = await findEndpoint(ctx.deps, endpointId);
      if ("status" in endpoint) {
        log.log("warn", "delivery rejected", {
          endpoint: endpointId.slice(0, 64),
          status: endpoint.status,
          reason: endpoint.body.error,
        });
        return json(endpoint.status, endpoint.body);
      }
      const limit = endpoint.maxBodyBytes ?? MAX_WEBHOOK_BODY_BYTES;
      const declared = Number(request.headers.get("content-length") ?? "0");
      if (declared > limit) return json(413, tooLarge(limit, declared).body);
      const body = Buffer.from(await request.arrayBuffer());
      if (body.length > limit) return json(413, tooLarge(limit, body.length).body);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      const answer = await acceptDelivery(ctx.deps, endpoint, { headers, body });
      if (answer.status === 202 && answer.body.run_id) ctx.nudge.executor.notify();
      log.log(answer.status < 300 ? "info" : "warn", "delivery answered", {
        endpoint: endpoint.id,
        status: answer.status,
        ...pick(answer.body),
      });
      return json(answer.status, answer.body);
    } catch (error) {
      log.log("error", "delivery failed; the sender should retry", {
        endpoint: endpointId.slice(0, 64),
        error: errorText(error),
      });
      return json(
        503,
        { error: "unavailable", message: "the store is unavailable; nothing was accepted" },
        { "retry-after": "10" },
      );
    }
  };

const pick = (body: Record<string, unknown>) => ({
  reason: body.error,
  delivery_id: body.delivery_id,
  run_id: body.run_id,
  duplicate: body.duplicate,
});

export const webhookService = (ctx: WorkerContext): WorkerService => {
  let accepting = true;
  return {
    name: "webhooks",
    routes: { "/hooks/:id": { POST: receive(ctx, () => accepting) } },
    start: () => {},
    drain: async () => {
      accepting = false;
    },
    force: async () => {
      accepting = false;
    },
  };
};
