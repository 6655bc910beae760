-- Outbound webhooks: URLs an agent registers to hear of its own events (a message in its inbox, a task assigned to
-- it, a run of its job failed). Events are written to an outbox (webhook_events) in the transaction that causes
-- them; the worker claims each under a lease, posts it signed the Standard Webhooks way and records every attempt.
-- The secret signs, so it is stored as given (never printed after add, never logged). Payloads carry ids, never a
-- message body. Everything of an endpoint goes with it, and with its owner's name when that is unregistered.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
  url TEXT NOT NULL,
  -- The event kinds it receives, as ',message,task,' so one LIKE finds a kind.
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  -- After rotate-secret, the old secret also signs (a second v1 signature) until previous_secret_until.
  previous_secret TEXT,
  previous_secret_until BIGINT,
  allow_private INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'active',
  disabled_reason TEXT,
  -- Events in a row that used every attempt and failed, with no delivery succeeding since.
  failed_streak INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE INDEX webhook_endpoints_by_owner ON webhook_endpoints (owner, created_at);

-- One row per (endpoint, event): id is the webhook-id header, the same on every retry.
CREATE TABLE webhook_events (
  id TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_token TEXT,
  lease_expires_at BIGINT,
  created_at BIGINT NOT NULL,
  finished_at BIGINT
);

CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE state = 'pending';

CREATE INDEX webhook_events_by_endpoint ON webhook_events (endpoint_id, created_at);

-- Every attempt: when, by which worker, how long, and the HTTP status or the class of error. No response body.
CREATE TABLE webhook_attempts (
  event_id TEXT NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  endpoint_id TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  duration_ms INTEGER,
  status_code INTEGER,
  error_kind TEXT,
  outcome TEXT,
  PRIMARY KEY (event_id, attempt)
);

CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, started_at);
