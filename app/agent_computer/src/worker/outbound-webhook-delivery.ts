// The outbound webhook sender: claims due events under a lease (so two workers on one store never send the same
// attempt) and fairly (one attempt at a time per endpoint, a bounded share of the slots per owner), posts each
// (outbound-webhook-post.ts), and settles it in the store, which schedules the retry or, after too many
// failures, disables the endpoint and tells its owner. Logs carry ids, status codes and durations, never a URL,
// payload or secret.
import {
  claimDeliveries,
  type DeliveryPolicy,
  deliveryDue,
  nextDeliveryDueAt,
  settleDelivery,
} from "../domain/outbound-webhooks/delivery.ts";
import { errorText } from "../errors.ts";
import type { ClaimedWebhookEvent } from "../store/port.ts";
import { Nudge } from "./nudge.ts";
import { postWebhook } from "./outbound-webhook-post.ts";
import { sleepBefore } from "./work-hints.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

/** Attempts in flight at once per worker. */
const CONCURRENCY = 8;
/**
 * Of those, the most one owner's endpoints may hold: an agent whose receivers all hang keeps this many slots busy
 * for a timeout each and leaves the rest to everyone else (the store also sends each endpoint one attempt at a time).
 */
const SLOTS_PER_OWNER = 2;
const USER_AGENT = "agent-computer-webhooks/1";

export const webhookDeliveryService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("webhook-delivery");
  const { backoffMs, disableAfter, timeoutMs } = ctx.options.webhooks;
  // A claim outlives the longest attempt by a margin; a worker that dies loses its claims when they lapse.
  const policy: DeliveryPolicy = { backoffMs, disableAfter, leaseMs: timeoutMs * 2 + 10_000 };
  const inFlight = new Map<string, { owner: string; done: Promise<void> }>();
  const abort = new AbortController();
  const wake = ctx.nudge.webhooks ?? new Nudge();
  let running = true;
  let loopDone: Promise<void> = Promise.resolve();

  const ownAddresses = ctx.deps.local?.addresses;
  if (!ownAddresses) throw new Error("webhook delivery needs this host's addresses (deps.local), which the root builds");

  const attempt = async (claimed: ClaimedWebhookEvent): Promise<void> => {
    const result = await postWebhook(claimed, {
      timeoutMs,
      signal: abort.signal,
      userAgent: USER_AGENT,
      ownAddresses,
      now: ctx.deps.now,
    });
    // Stopped mid-attempt: the claim lapses and another worker (or this one, restarted) sends it again.
    if (result.errorKind === "aborted") return;
    const settled = await settleDelivery(ctx.deps, claimed, result, policy);
    const fields = {
      endpoint_id: claimed.endpoint.id,
      event_id: claimed.event.id,
      attempt: claimed.attempt,
      status_code: result.statusCode,
      error_kind: result.errorKind,
      duration_ms: Math.round(result.durationMs),
    };
    if (!settled.event) log.log("warn", "webhook attempt outlived its claim; its result was not recorded", fields);
    else if (result.ok) log.log("info", "webhook delivered", fields);
    else
      log.log("warn", `webhook attempt failed (${settled.event.state === "pending" ? "will retry" : "no retries left"})`, fields);
    if (settled.disabled) log.log("warn", "webhook endpoint disabled; its owner was told", settled.disabled);
  };

  const start = (claimed: ClaimedWebhookEvent): void => {
    const done = attempt(claimed)
      .catch((error) =>
        log.log("error", "recording a webhook attempt failed", { event_id: claimed.event.id, error: errorText(error) }),
      )
      .finally(() => {
        inFlight.delete(claimed.event.id);
        wake.notify();
      });
    inFlight.set(claimed.event.id, { owner: claimed.endpoint.owner, done });
  };

  /** Claims as many due events as there are free slots; returns how many it started. */
  const fill = async (): Promise<number> => {
    const free = CONCURRENCY - inFlight.size;
    if (free <= 0 || !(await deliveryDue(ctx.deps))) return 0;
    const inFlightByOwner = new Map<string, number>();
    for (const { owner } of inFlight.values()) inFlightByOwner.set(owner, (inFlightByOwner.get(owner) ?? 0) + 1);
    const claimed = await claimDeliveries(ctx.deps, {
      workerId: ctx.workerId,
      limit: free,
      policy,
      perOwner: SLOTS_PER_OWNER,
      inFlightByOwner,
    });
    for (const c of claimed) start(c);
    return claimed.length;
  };

  /**
   * How long an idle sender sleeps: with NOTIFY (work-hints.ts) until the next event falls due (a retry, a lapsing
   * claim) or the fallback; an event due already that another worker's claim holds back waits one poll.
   */
  const idleSleep = async (): Promise<number> => {
    if (!ctx.hints?.live) return ctx.options.pollMs;
    const due = await nextDeliveryDueAt(ctx.deps);
    return due !== null && due <= ctx.deps.now() ? ctx.options.pollMs : sleepBefore(ctx, due);
  };

  const loop = async (): Promise<void> => {
    while (running) {
      try {
        if ((await fill()) > 0) continue;
      } catch (error) {
        log.log("error", "claiming webhook events failed; retrying", { error: errorText(error) });
      }
      await wake.wait(await idleSleep().catch(() => ctx.options.pollMs));
    }
  };

  const settleAll = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.race([...inFlight.values()].map((f) => f.done));
  };

  return {
    name: "webhook-delivery",
    start: () => {
      loopDone = loop();
    },
    drainOnce: async () => {
      // Everything due now, once each; retries scheduled for later are left to a daemon.
      for (;;) {
        const started = await fill();
        if (started === 0 && inFlight.size === 0) return;
        if (started === 0 || inFlight.size >= CONCURRENCY) await Promise.race([...inFlight.values()].map((f) => f.done));
      }
    },
    drain: async () => {
      running = false;
      wake.notify();
      await loopDone;
      await settleAll();
    },
    force: async () => {
      running = false;
      abort.abort();
      wake.notify();
      await settleAll();
    },
  };
};
