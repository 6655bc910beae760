// The reads behind a fair claim of outbound webhook events. They go endpoint by endpoint, never down the outbox in
// due order: one agent's backlog of thousands of due events for receivers that hang would otherwise stand in front
// of every other agent's. Each active endpoint costs a couple of index seeks (migration 017): whether a worker holds
// one of its events now, and its oldest due event.

/**
 * An event under a live lease: an attempt in flight. Only a claim sets lease_token and settling clears it, so the
 * event is pending too; `alias` qualifies the columns ("ev.").
 */
const inFlight = (alias: string, now: string): string => `${alias}lease_token IS NOT NULL AND ${alias}lease_expires_at >= ${now}`;

/**
 * Endpoints a worker on host `host` may send to now: active, public or added on that host (migration 016), and
 * idle: no worker holds an event of theirs under a live lease, so each endpoint gets one attempt at a time.
 */
const idleEndpoints = (now: string, host: string): string => `ep.state = 'active'
  AND (ep.private_host IS NULL OR ep.private_host = ${host})
  AND NOT EXISTS (SELECT 1 FROM webhook_events held WHERE held.endpoint_id = ep.id AND ${inFlight("held.", now)})`;

/** The endpoint's pending events whose attempt is due and whose lease, if any, ran out. */
const dueOf = (now: string): string => `ev.endpoint_id = ep.id AND ev.state = 'pending' AND ev.next_attempt_at <= ${now}
  AND (ev.lease_expires_at IS NULL OR ev.lease_expires_at < ${now})`;

/** Whether a claim by a worker on host $2 at $1 would find anything. */
export const DUE_EXISTS_SQL = `SELECT 1 AS found FROM webhook_endpoints ep WHERE ${idleEndpoints("$1", "$2")}
  AND EXISTS (SELECT 1 FROM webhook_events ev WHERE ${dueOf("$1")}) LIMIT 1`;

/** When the earliest pending event of an endpoint a worker on host $1 may send falls due: attempt or lease end. */
export const NEXT_DUE_SQL = `SELECT MIN(CASE WHEN ev.lease_expires_at > ev.next_attempt_at THEN ev.lease_expires_at
    ELSE ev.next_attempt_at END) AS due
  FROM webhook_events ev JOIN webhook_endpoints ep ON ep.id = ev.endpoint_id
  WHERE ev.state = 'pending' AND ep.state = 'active' AND (ep.private_host IS NULL OR ep.private_host = $1)`;

/** Whether endpoint $1 has an attempt in flight at $2: checked again once a claim holds the endpoint's row. */
export const ENDPOINT_BUSY_SQL = `SELECT 1 AS busy FROM webhook_events ev WHERE ev.endpoint_id = $1 AND ${inFlight("ev.", "$2")} LIMIT 1`;

/**
 * What a claim may take, fairest first: each idle endpoint's oldest due event, at most $3 per owner, every owner's
 * first before anyone's second, then oldest first; $4 rows at most. $1 is now, $2 the worker's host; owners whose
 * share of this worker is taken ($5 on, `fullOwners` of them) offer none.
 */
export const dueHeadsSql = (fullOwners: number): string => {
  const full = Array.from({ length: fullOwners }, (_, i) => `$${i + 5}`).join(", ");
  return `WITH heads AS (
    SELECT ep.owner, (SELECT ev.id FROM webhook_events ev WHERE ${dueOf("$1")} ORDER BY ev.next_attempt_at, ev.id LIMIT 1) AS id
    FROM webhook_endpoints ep WHERE ${idleEndpoints("$1", "$2")}${fullOwners > 0 ? ` AND ep.owner NOT IN (${full})` : ""}
  ), ranked AS (
    SELECT h.id, h.owner, ev.endpoint_id, ev.next_attempt_at,
      ROW_NUMBER() OVER (PARTITION BY h.owner ORDER BY ev.next_attempt_at, ev.id) AS in_owner
    FROM heads h JOIN webhook_events ev ON ev.id = h.id
  )
  SELECT id, owner, endpoint_id FROM ranked WHERE in_owner <= $3 ORDER BY in_owner, next_attempt_at, id LIMIT $4`;
};
