// The delivery rules of outbound webhooks, apart from HTTP: which events a worker claims, when a failed attempt is
// tried again (exponential backoff with jitter), when an event has failed for good, and when an endpoint that keeps
// failing is disabled (its owner is told in its inbox, in the same transaction).
import { randomBytes } from "node:crypto";
import type { ClaimedWebhookEvent, WebhookAttemptResult, WebhookEventRecord } from "../../store/port.ts";
import { atOneInstant, type Deps, hostIdOf } from "../deps.ts";
import { deliverSystemMessage } from "../mesh/notify.ts";

export interface DeliveryPolicy {
  /** The wait before each retry: an event is tried at most backoffMs.length + 1 times. */
  backoffMs: readonly number[];
  /** An endpoint is disabled when this many events in a row failed every attempt, with no delivery succeeding since. */
  disableAfter: number;
  /** How long a claim holds an event: a worker that dies mid-attempt loses it after this, and another retries. */
  leaseMs: number;
}

/** 5 s, 30 s, 2 min, 10 min, 30 min, 2 h, 6 h: eight attempts over about nine hours. */
export const DEFAULT_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 21_600_000] as const;
export const DEFAULT_DISABLE_AFTER = 5;

/** A delay stretched by up to a quarter at random, so retries of many events to one receiver spread out. */
export const withJitter = (ms: number, random: () => number = Math.random): number => Math.round(ms * (1 + random() * 0.25));

const mintLeaseToken = (): string => `whlease_${randomBytes(18).toString("base64url")}`;

/** Whether a claim would find anything: a read, so an idle worker polls without taking the write lock. */
export const deliveryDue = (deps: Deps): Promise<boolean> =>
  deps.store.read((tx) => tx.webhooks.dueEventExists(deps.now(), hostIdOf(deps)));

/** When the next event this host's sender may send falls due (null: none pending), so an idle sender can sleep. */
export const nextDeliveryDueAt = (deps: Deps): Promise<number | null> =>
  deps.store.read((tx) => tx.webhooks.nextEventDueAt(hostIdOf(deps)));

/**
 * Claims up to `limit` due events for this worker, each under a lease of policy.leaseMs: one at a time per endpoint,
 * and at most `perOwner` per owner counting those the worker holds already (`inFlightByOwner`), so one agent's slow
 * or dead receivers take a few of the worker's slots and never all of them. Without `perOwner`, owners are unbounded.
 */
export const claimDeliveries = (
  live: Deps,
  input: {
    workerId: string;
    limit: number;
    policy: DeliveryPolicy;
    perOwner?: number;
    inFlightByOwner?: ReadonlyMap<string, number>;
  },
): Promise<ClaimedWebhookEvent[]> => {
  const deps = atOneInstant(live);
  return deps.store.write((tx) =>
    tx.webhooks.claimEvents({
      workerId: input.workerId,
      hostId: hostIdOf(deps),
      now: deps.now(),
      leaseMs: input.policy.leaseMs,
      limit: input.limit,
      perOwner: input.perOwner ?? input.limit,
      inFlightByOwner: input.inFlightByOwner ?? new Map(),
      newToken: mintLeaseToken,
    }),
  );
};

export interface Settled {
  /** The event after this attempt; undefined when the lease was lost (another worker owns the event now). */
  event?: WebhookEventRecord;
  /** Set when this attempt's failure disabled the endpoint. */
  disabled?: { endpointId: string; owner: string; messageId: string };
}

const describeFailure = (result: Omit<WebhookAttemptResult, "endedAt">): string =>
  result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.errorKind ?? "error");

/**
 * Records one attempt's result, fenced by its lease. A success ends the endpoint's failure streak. A failure is
 * retried after the next backoff step; the last allowed failure ends the event failed and lengthens the streak,
 * and the streak reaching policy.disableAfter disables the endpoint and tells its owner, all in one transaction.
 */
export const settleDelivery = (
  live: Deps,
  claimed: ClaimedWebhookEvent,
  result: Omit<WebhookAttemptResult, "endedAt">,
  policy: DeliveryPolicy,
  random: () => number = Math.random,
): Promise<Settled> => {
  const deps = atOneInstant(live);
  return deps.store.write(async (tx) => {
    const step = policy.backoffMs[claimed.attempt - 1];
    const retryAt = result.ok || step === undefined ? null : deps.now() + withJitter(step, random);
    const fence = { eventId: claimed.event.id, attempt: claimed.attempt, leaseToken: claimed.leaseToken };
    if (result.ok) {
      // The endpoint row is taken before its event (the order below and in every other writer), and the streak read
      // under that lock: a failure settled beside this success is then either seen and reset, or counted after it.
      const endpoint = await tx.webhooks.getEndpoint(claimed.endpoint.id, true);
      const event = await tx.webhooks.settleAttempt(fence, { ...result, endedAt: deps.now() }, null);
      if (!event) return {};
      if (endpoint && endpoint.failedStreak !== 0) await tx.webhooks.setFailedStreak(endpoint.id, 0, deps.now());
      return { event };
    }
    // A failure may disable the endpoint and write to its owner's inbox: rows are taken in the order every other
    // writer takes them (the owner's agent row, then the endpoint, then its events), so none of them deadlocks here.
    // One row, so lockAgentsInOrder would leave it to the notice's UPDATE: too late, the endpoint is held by then.
    await tx.mesh.lockAgents([claimed.endpoint.owner]);
    const endpoint = await tx.webhooks.getEndpoint(claimed.endpoint.id, true);
    const event = await tx.webhooks.settleAttempt(fence, { ...result, endedAt: deps.now() }, retryAt);
    if (!event || !endpoint) return event ? { event } : {};
    if (event.state === "pending") return { event };
    const streak = endpoint.failedStreak + 1;
    if (streak < policy.disableAfter || endpoint.state !== "active") {
      await tx.webhooks.setFailedStreak(endpoint.id, streak, deps.now());
      return { event };
    }
    const reason =
      `${streak} events in a row failed every one of their ${policy.backoffMs.length + 1} attempts ` +
      `(the last ended ${describeFailure(result)})`;
    await tx.webhooks.setFailedStreak(endpoint.id, streak, deps.now());
    await tx.webhooks.setEndpointState(endpoint.id, "disabled", reason, deps.now());
    const notice = await deliverSystemMessage(tx, {
      recipient: endpoint.owner,
      kind: "event",
      body:
        `Webhook endpoint ${endpoint.id} was disabled: ${reason}. Nothing is sent to it now; events for it are no ` +
        `longer recorded, and those still pending are kept. See agent-webhook-cli deliveries --agent-id ` +
        `${endpoint.owner} --endpoint-id ${endpoint.id}; once the receiver works, agent-webhook-cli enable --agent-id ` +
        `${endpoint.owner} --endpoint-id ${endpoint.id} sends what is pending.`,
      now: deps.now(),
      newId: deps.newId,
    });
    return { event, disabled: { endpointId: endpoint.id, owner: endpoint.owner, messageId: notice.messageId } };
  });
};
