-- Automation jobs (PostgreSQL), their triggers (checkbacks, cron schedules, webhook endpoints), trigger firings, runs with
-- fenced attempts, per-owner worker environments and live workers. Times are epoch milliseconds.
CREATE TABLE automation_jobs (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL REFERENCES agents(name),
  label TEXT NOT NULL,
  dir TEXT NOT NULL,
  wake_on_failure INTEGER NOT NULL DEFAULT 0,
  timeout_seconds INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'active',
  created_at BIGINT NOT NULL,
  cancelled_at BIGINT
);

CREATE INDEX automation_jobs_by_owner ON automation_jobs (owner, created_at);

-- One row per checkback, cron schedule or webhook endpoint. due_at is the checkback's due time or the
-- schedule's next tick; it is NULL for webhooks and for anything no longer active.
CREATE TABLE automation_triggers (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  owner TEXT NOT NULL REFERENCES agents(name),
  job_id TEXT REFERENCES automation_jobs(id),
  label TEXT,
  state TEXT NOT NULL DEFAULT 'active',
  due_at BIGINT,
  cron_expr TEXT,
  tz TEXT,
  misfire_window_seconds INTEGER,
  provider TEXT,
  secret TEXT,
  max_body_bytes INTEGER,
  fire_count INTEGER NOT NULL DEFAULT 0,
  skipped_count INTEGER NOT NULL DEFAULT 0,
  last_fired_at BIGINT,
  created_at BIGINT NOT NULL,
  ended_at BIGINT
);

CREATE INDEX automation_triggers_due ON automation_triggers (due_at) WHERE state = 'active' AND due_at IS NOT NULL;

CREATE INDEX automation_triggers_by_owner ON automation_triggers (owner, created_at);

CREATE INDEX automation_triggers_by_job ON automation_triggers (job_id) WHERE job_id IS NOT NULL;

-- Exactly once per checkback (fire_key ''), per (schedule, tick) and per (endpoint, delivery id).
CREATE TABLE automation_firings (
  trigger_id TEXT NOT NULL REFERENCES automation_triggers(id),
  fire_key TEXT NOT NULL,
  outcome TEXT NOT NULL,
  scheduled_for BIGINT,
  skipped_ticks INTEGER NOT NULL DEFAULT 0,
  run_id TEXT,
  message_id TEXT,
  fired_at BIGINT NOT NULL,
  PRIMARY KEY (trigger_id, fire_key)
);

CREATE TABLE automation_runs (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES automation_jobs(id),
  owner TEXT NOT NULL,
  trigger_id TEXT,
  trigger_kind TEXT NOT NULL,
  fire_key TEXT,
  event TEXT NOT NULL,
  state TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  lease_token TEXT,
  lease_expires_at BIGINT,
  worker_id TEXT,
  emitted_count INTEGER NOT NULL DEFAULT 0,
  exit_code INTEGER,
  signal TEXT,
  error_kind TEXT,
  error TEXT,
  stdout_tail TEXT,
  stderr_tail TEXT,
  created_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT
);

CREATE UNIQUE INDEX automation_runs_one_per_firing ON automation_runs (trigger_id, fire_key) WHERE trigger_id IS NOT NULL;

CREATE INDEX automation_runs_queued ON automation_runs (created_at) WHERE state = 'queued';

CREATE INDEX automation_runs_leases ON automation_runs (lease_expires_at) WHERE state = 'running';

CREATE INDEX automation_runs_by_job ON automation_runs (job_id, created_at);

CREATE TABLE automation_attempts (
  run_id TEXT NOT NULL REFERENCES automation_runs(id),
  attempt INTEGER NOT NULL,
  worker_id TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  ended_at BIGINT,
  outcome TEXT,
  PRIMARY KEY (run_id, attempt)
);

CREATE TABLE automation_worker_env (
  owner TEXT NOT NULL REFERENCES agents(name),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (owner, key)
);

CREATE TABLE automation_workers (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  url TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  stopped_at BIGINT
);
