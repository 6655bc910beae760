// Outbound webhooks: endpoints, the event outbox and delivery attempts. A claim sets a lease token on the event;
// every later write of that attempt names it, so a worker whose lease ran out (and was taken over) writes nothing.
import type {
  ClaimedWebhookEvent,
  WebhookAttemptRecord,
  WebhookEndpointRecord,
  WebhookEventKind,
  WebhookEventRecord,
  WebhookEventState,
  WebhookRepo,
} from "../port-outbound-webhooks.ts";
import { WEBHOOK_CHANNEL } from "../port-outbound-webhooks.ts";
import { type Db, num, numOrNull, type Row, str, strOrNull } from "./db.ts";
import { DUE_EXISTS_SQL, dueHeadsSql, ENDPOINT_BUSY_SQL, NEXT_DUE_SQL } from "./webhook-claim.ts";

const toEndpoint = (r: Row): WebhookEndpointRecord => ({
  id: str(r.id),
  owner: str(r.owner),
  url: str(r.url),
  events: str(r.events).split(",").filter(Boolean) as WebhookEventKind[],
  secret: str(r.secret),
  previousSecret: strOrNull(r.previous_secret),
  previousSecretUntil: numOrNull(r.previous_secret_until),
  allowPrivate: num(r.allow_private) === 1,
  privateHost: strOrNull(r.private_host),
  state: r.state === "disabled" ? "disabled" : "active",
  disabledReason: strOrNull(r.disabled_reason),
  failedStreak: num(r.failed_streak),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

/** The oldest ended events, for retention to prune: read through index webhook_events_ended (migration 015). */
export const ENDED_EVENTS_SQL = `SELECT id FROM webhook_events WHERE state IN ('delivered', 'failed') AND finished_at < $1
  ORDER BY finished_at, id LIMIT $2`;
const EVENT_COLUMNS = "id, endpoint_id, type, payload, state, attempts, next_attempt_at, created_at, finished_at";

const toEvent = (r: Row): WebhookEventRecord => ({
  id: str(r.id),
  endpointId: str(r.endpoint_id),
  type: str(r.type),
  payload: str(r.payload),
  state: str(r.state) as WebhookEventState,
  attempts: num(r.attempts),
  nextAttemptAt: num(r.next_attempt_at),
  createdAt: num(r.created_at),
  finishedAt: numOrNull(r.finished_at),
});

const toAttempt = (r: Row): WebhookAttemptRecord => ({
  eventId: str(r.event_id),
  endpointId: str(r.endpoint_id),
  eventType: str(r.event_type),
  attempt: num(r.attempt),
  workerId: str(r.worker_id),
  startedAt: num(r.started_at),
  durationMs: numOrNull(r.duration_ms),
  statusCode: numOrNull(r.status_code),
  errorKind: strOrNull(r.error_kind),
  outcome: strOrNull(r.outcome),
});

/**
 * Pending events whose attempt is due at `now` and not leased, of active endpoints that a worker on host `host` may
 * send: a private endpoint's only from the host it was added on (migration 016). Both are placeholders.
 */
const due = (now: string, host: string): string => `state = 'pending' AND next_attempt_at <= ${now}
  AND (lease_expires_at IS NULL OR lease_expires_at < ${now})
  AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE state = 'active' AND (private_host IS NULL OR private_host = ${host}))`;

export const webhookRepo = (db: Db): WebhookRepo => ({
  insertEndpoint: async (e) => {
    await db.run(
      `INSERT INTO webhook_endpoints (id, owner, url, events, secret, allow_private, state, disabled_reason, failed_streak,
         created_at, updated_at, private_host) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        e.id,
        e.owner,
        e.url,
        `,${e.events.join(",")},`,
        e.secret,
        e.allowPrivate ? 1 : 0,
        e.state,
        e.disabledReason,
        e.failedStreak,
        e.createdAt,
        e.updatedAt,
        e.privateHost,
      ],
    );
  },
  getEndpoint: async (id, lock) => {
    const row = await db.get<Row>(`SELECT * FROM webhook_endpoints WHERE id = $1${lock ? db.forUpdate : ""}`, [id]);
    return row ? toEndpoint(row) : undefined;
  },
  listEndpoints: async (owner, limit) =>
    (owner === null
      ? await db.all<Row>("SELECT * FROM webhook_endpoints ORDER BY created_at DESC, id DESC LIMIT $1", [limit])
      : await db.all<Row>("SELECT * FROM webhook_endpoints WHERE owner = $1 ORDER BY created_at DESC, id DESC LIMIT $2", [
          owner,
          limit,
        ])
    ).map(toEndpoint),
  deleteEndpoint: async (id) => {
    // Attempts hang off events, events off the endpoint (ON DELETE CASCADE both ways).
    return (await db.run("DELETE FROM webhook_endpoints WHERE id = $1", [id])) === 1;
  },
  setEndpointState: async (id, state, reason, now) => {
    await db.run(
      `UPDATE webhook_endpoints SET state = $2, disabled_reason = $3, updated_at = $4,
         failed_streak = CASE WHEN $2 = 'active' THEN 0 ELSE failed_streak END WHERE id = $1`,
      [id, state, reason, now],
    );
  },
  rotateSecret: async (id, secret, previousUntil, now) => {
    await db.run(
      `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = $3, secret = $2, updated_at = $4
       WHERE id = $1`,
      [id, secret, previousUntil, now],
    );
  },
  setFailedStreak: async (id, streak, now) => {
    await db.run("UPDATE webhook_endpoints SET failed_streak = $2, updated_at = $3 WHERE id = $1", [id, streak, now]);
  },
  subscribers: async (owner, kind) =>
    (
      await db.all<Row>("SELECT id FROM webhook_endpoints WHERE owner = $1 AND state = 'active' AND events LIKE $2 ORDER BY id", [
        owner,
        `%,${kind},%`,
      ])
    ).map((r) => str(r.id)),
  insertEvent: async (e, nextAttemptAt) => {
    await db.run(
      `INSERT INTO webhook_events (id, endpoint_id, type, payload, state, attempts, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, 'pending', 0, $5, $6)`,
      [e.id, e.endpointId, e.type, e.payload, nextAttemptAt, e.createdAt],
    );
    // Idle senders sleep long on PostgreSQL and wake on this (sent at commit; one per transaction whatever the count).
    if (db.dialect === "postgres") await db.run("SELECT pg_notify($1, '')", [WEBHOOK_CHANNEL]);
  },
  getEvent: async (id) => {
    const row = await db.get<Row>(`SELECT ${EVENT_COLUMNS} FROM webhook_events WHERE id = $1`, [id]);
    return row ? toEvent(row) : undefined;
  },
  dueEventExists: async (now, hostId) => (await db.get<Row>(DUE_EXISTS_SQL, [now, hostId])) !== undefined,
  nextEventDueAt: async (hostId) => numOrNull((await db.get<Row>(NEXT_DUE_SQL, [hostId]))?.due),
  claimEvents: async ({ workerId, hostId, now, leaseMs, limit, perOwner, inFlightByOwner, newToken }) => {
    const full = [...inFlightByOwner].filter(([, n]) => n >= perOwner).map(([owner]) => owner);
    // Owners with part of their share left may offer more heads than they can take: read past them.
    const held = [...inFlightByOwner.values()].reduce((sum, n) => sum + n, 0);
    const heads = await db.all<Row>(dueHeadsSql(full.length), [now, hostId, perOwner, limit + held, ...full]);
    const taken = new Map(inFlightByOwner);
    const claimed: ClaimedWebhookEvent[] = [];
    for (const head of heads) {
      const owner = str(head.owner);
      if (claimed.length >= limit || (taken.get(owner) ?? 0) >= perOwner) continue;
      // Whoever claims or settles an event of an endpoint holds its row until commit, so once this lock is had
      // every earlier claim is committed and the idle check below sees it; one held elsewhere is passed over.
      if (db.dialect === "postgres") {
        const locked = await db.get<Row>(`SELECT id FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE SKIP LOCKED`, [
          head.endpoint_id,
        ]);
        if (!locked) continue;
      }
      if (await db.get<Row>(ENDPOINT_BUSY_SQL, [head.endpoint_id, now])) continue;
      const leaseToken = newToken();
      const row = await db.get<Row>(
        `UPDATE webhook_events SET attempts = attempts + 1, lease_token = $2, lease_expires_at = $3
         WHERE id = $1 AND ${due("$4", "$5")} RETURNING ${EVENT_COLUMNS}`,
        [head.id, leaseToken, now + leaseMs, now, hostId],
      );
      if (!row) continue;
      const event = toEvent(row);
      const endpointRow = await db.get<Row>("SELECT * FROM webhook_endpoints WHERE id = $1", [event.endpointId]);
      if (!endpointRow) continue;
      // A claim after a lapsed lease: the attempt before it never reported back.
      await db.run("UPDATE webhook_attempts SET outcome = 'lost', error_kind = 'lost' WHERE event_id = $1 AND outcome IS NULL", [
        event.id,
      ]);
      await db.run(
        "INSERT INTO webhook_attempts (event_id, attempt, endpoint_id, worker_id, started_at) VALUES ($1, $2, $3, $4, $5)",
        [event.id, event.attempts, event.endpointId, workerId, now],
      );
      taken.set(owner, (taken.get(owner) ?? 0) + 1);
      claimed.push({ event, endpoint: toEndpoint(endpointRow), attempt: event.attempts, leaseToken });
    }
    return claimed;
  },
  settleAttempt: async (fence, result, retryAt) => {
    const state: WebhookEventState = result.ok ? "delivered" : retryAt === null ? "failed" : "pending";
    const row = await db.get<Row>(
      `UPDATE webhook_events SET state = $4, next_attempt_at = COALESCE($5, next_attempt_at), lease_token = NULL,
         lease_expires_at = NULL, finished_at = $6
       WHERE id = $1 AND attempts = $2 AND lease_token = $3 AND state = 'pending' RETURNING ${EVENT_COLUMNS}`,
      [fence.eventId, fence.attempt, fence.leaseToken, state, retryAt, state === "pending" ? null : result.endedAt],
    );
    if (!row) return undefined;
    await db.run(
      `UPDATE webhook_attempts SET duration_ms = $3, status_code = $4, error_kind = $5, outcome = $6
       WHERE event_id = $1 AND attempt = $2`,
      [
        fence.eventId,
        fence.attempt,
        Math.round(result.durationMs),
        result.statusCode,
        result.errorKind,
        result.ok ? "delivered" : "failed",
      ],
    );
    return toEvent(row);
  },
  attempts: async (filter, limit) => {
    const select = "SELECT a.*, ev.type AS event_type FROM webhook_attempts a JOIN webhook_events ev ON ev.id = a.event_id";
    const order = "ORDER BY a.started_at DESC, a.event_id DESC, a.attempt DESC";
    const rows =
      filter.endpointId !== undefined
        ? await db.all<Row>(`${select} WHERE a.endpoint_id = $1 ${order} LIMIT $2`, [filter.endpointId, limit])
        : filter.owner
          ? await db.all<Row>(`${select} JOIN webhook_endpoints e ON e.id = a.endpoint_id WHERE e.owner = $1 ${order} LIMIT $2`, [
              filter.owner,
              limit,
            ])
          : await db.all<Row>(`${select} ${order} LIMIT $1`, [limit]);
    return rows.map(toAttempt);
  },
  eventsOf: async (endpointId, limit) =>
    (
      await db.all<Row>(
        `SELECT ${EVENT_COLUMNS} FROM webhook_events WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
        [endpointId, limit],
      )
    ).map(toEvent),
  pruneEndedEvents: async (endedBefore, limit) => {
    const ended = await db.all<Row>(ENDED_EVENTS_SQL, [endedBefore, limit]);
    if (ended.length === 0) return 0;
    const ids = ended.map((r) => str(r.id));
    const list = ids.map((_, i) => `$${i + 1}`).join(", ");
    // Events first, their attempts by ON DELETE CASCADE: the order an endpoint's delete takes the same rows in.
    // The state is tested again in the delete, so only an ended event can ever go.
    return db.run(`DELETE FROM webhook_events WHERE id IN (${list}) AND state IN ('delivered', 'failed')`, ids);
  },
  eventCounts: async (endpointId) => {
    const counts: Record<WebhookEventState, number> = { pending: 0, delivered: 0, failed: 0 };
    for (const r of await db.all<Row>("SELECT state, COUNT(*) AS n FROM webhook_events WHERE endpoint_id = $1 GROUP BY state", [
      endpointId,
    ])) {
      counts[str(r.state) as WebhookEventState] = num(r.n);
    }
    return counts;
  },
});
