// The outbound-webhooks side of the store port: endpoints an agent registered, the outbox of events for them, and
// every delivery attempt. Events are enqueued inside the transaction that causes them; the worker claims them under
// a lease (so two workers never send the same attempt) and settles each attempt fenced by that lease.

/** What an endpoint may receive: a message delivered to its owner, a task assigned to it, a run of its job failed. */
/** The channel idle webhook senders LISTEN on; a notification only means "look again now". */
export const WEBHOOK_CHANNEL = "agent_computer_webhooks";

export const WEBHOOK_EVENT_KINDS = ["message", "task", "run_failed"] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

export type WebhookEndpointState = "active" | "disabled";

export interface WebhookEndpointRecord {
  id: string;
  owner: string;
  url: string;
  events: WebhookEventKind[];
  /** whsec_…: the worker signs with it, so it is stored; never listed, printed after add, or logged. */
  secret: string;
  /** The secret before the last rotation: it signs too, until previousSecretUntil, so receivers can switch over. */
  previousSecret: string | null;
  previousSecretUntil: number | null;
  allowPrivate: boolean;
  /** With allowPrivate, the id of the host it was added on, whose worker alone delivers it; null for a public one. */
  privateHost: string | null;
  state: WebhookEndpointState;
  disabledReason: string | null;
  /** Events in a row that failed every attempt, with no success since. */
  failedStreak: number;
  createdAt: number;
  updatedAt: number;
}

export type WebhookEventState = "pending" | "delivered" | "failed";

export interface NewWebhookEvent {
  /** The webhook-id header: the same on every retry of this event to this endpoint. */
  id: string;
  endpointId: string;
  type: string;
  /** The JSON body as sent; never holds a message body. */
  payload: string;
  createdAt: number;
}

export interface WebhookEventRecord extends NewWebhookEvent {
  state: WebhookEventState;
  attempts: number;
  nextAttemptAt: number;
  finishedAt: number | null;
}

/** An event claimed by one worker: its lease token fences every write of this attempt. */
export interface ClaimedWebhookEvent {
  event: WebhookEventRecord;
  endpoint: WebhookEndpointRecord;
  attempt: number;
  leaseToken: string;
}

export interface WebhookAttemptRecord {
  eventId: string;
  endpointId: string;
  eventType: string;
  attempt: number;
  workerId: string;
  startedAt: number;
  durationMs: number | null;
  statusCode: number | null;
  /** http_status, timeout, connection, refused_address, lost (the worker went away mid-attempt). */
  errorKind: string | null;
  /** delivered, failed, lost; null while in flight. */
  outcome: string | null;
}

export interface WebhookAttemptResult {
  ok: boolean;
  statusCode: number | null;
  errorKind: string | null;
  durationMs: number;
  endedAt: number;
}

export interface WebhookRepo {
  insertEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  /** With lock, the row stays locked to the end of the transaction. */
  getEndpoint(id: string, lock?: boolean): Promise<WebhookEndpointRecord | undefined>;
  /** The owner's endpoints, newest first; owner null lists everyone's (the console). */
  listEndpoints(owner: string | null, limit: number): Promise<WebhookEndpointRecord[]>;
  /** Removes the endpoint with its events and attempts; false when it did not exist. */
  deleteEndpoint(id: string): Promise<boolean>;
  setEndpointState(id: string, state: WebhookEndpointState, reason: string | null, now: number): Promise<void>;
  setFailedStreak(id: string, streak: number, now: number): Promise<void>;
  /** A new secret; the current one keeps signing beside it until `previousUntil`. */
  rotateSecret(id: string, secret: string, previousUntil: number, now: number): Promise<void>;
  /** The active endpoints of `owner` that receive `kind`: the outbox rows an event of that kind needs. */
  subscribers(owner: string, kind: WebhookEventKind): Promise<string[]>;
  insertEvent(event: NewWebhookEvent, nextAttemptAt: number): Promise<void>;
  getEvent(id: string): Promise<WebhookEventRecord | undefined>;
  /**
   * Whether any event a worker on host `hostId` may send is due at `now` (a read, so idle polling takes no write
   * lock): of an active endpoint, public or added on that host.
   */
  dueEventExists(now: number, hostId: string): Promise<boolean>;
  /**
   * When the earliest event a worker on host `hostId` may send falls due (its next attempt, or its lease's end when
   * later), null when none is pending: how long an idle sender may sleep.
   */
  nextEventDueAt(hostId: string): Promise<number | null>;
  /**
   * Pending events of active endpoints due at `now` whose lease (if any) ran out, each given the next attempt
   * number and a new lease token, with its attempt row written; rows other workers hold are skipped. Fair: an
   * endpoint with an attempt in flight (any worker's live lease) gets none, any other at most one (its oldest due);
   * an owner gets at most `perOwner` less what this worker holds of it (`inFlightByOwner`); every owner's first
   * event before anyone's second, then oldest first. A private endpoint's events are claimed only by a worker on
   * the host it was added on (`hostId`).
   */
  claimEvents(input: {
    workerId: string;
    hostId: string;
    now: number;
    leaseMs: number;
    limit: number;
    perOwner: number;
    inFlightByOwner: ReadonlyMap<string, number>;
    newToken(): string;
  }): Promise<ClaimedWebhookEvent[]>;
  /**
   * Records the attempt's result if the lease still holds it: delivered, or back to pending at `retryAt`, or
   * failed when retryAt is null. Returns the event as it is afterwards, or undefined when fenced (nothing written).
   */
  settleAttempt(
    fence: { eventId: string; attempt: number; leaseToken: string },
    result: WebhookAttemptResult,
    retryAt: number | null,
  ): Promise<WebhookEventRecord | undefined>;
  /** Recent attempts, newest first: of one endpoint, or of every endpoint the owner has (owner null: everyone's). */
  attempts(filter: { endpointId?: string; owner?: string | null }, limit: number): Promise<WebhookAttemptRecord[]>;
  /** Events of one endpoint, newest first. */
  eventsOf(endpointId: string, limit: number): Promise<WebhookEventRecord[]>;
  /** Counts of an endpoint's events by state. */
  eventCounts(endpointId: string): Promise<Record<WebhookEventState, number>>;
  /**
   * Deletes up to `limit` events that ended (delivered or failed) before `endedBefore`, oldest first, with their
   * attempts; a pending event (claimed or not) is never touched. Returns how many events went.
   */
  pruneEndedEvents(endedBefore: number, limit: number): Promise<number>;
}
