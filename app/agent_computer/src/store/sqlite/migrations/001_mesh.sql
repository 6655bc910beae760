-- Agents, presence sessions, messages and per-recipient deliveries. Times are epoch milliseconds.
CREATE TABLE agents (
  name TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL,
  role TEXT,
  capabilities TEXT NOT NULL DEFAULT '[]',
  class TEXT NOT NULL DEFAULT 'unclassified',
  description TEXT,
  host_id TEXT,
  managed INTEGER NOT NULL DEFAULT 0,
  agent_pid INTEGER,
  agent_pid_start TEXT,
  host_shell_pids TEXT,
  cli_profile TEXT,
  terminal_title_ref TEXT,
  auth_state TEXT NOT NULL DEFAULT 'active',
  recovery_hash TEXT,
  last_seq BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL
);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  agent_name TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
  host TEXT NOT NULL,
  role TEXT,
  repo TEXT,
  caps TEXT NOT NULL DEFAULT '[]',
  status_line TEXT,
  status_set_at BIGINT,
  ttl_seconds INTEGER NOT NULL,
  started_at BIGINT NOT NULL,
  last_activity_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  watermark_seq BIGINT NOT NULL,
  ended_at BIGINT
);

CREATE UNIQUE INDEX sessions_one_open ON sessions (agent_name) WHERE ended_at IS NULL;

CREATE INDEX sessions_by_agent ON sessions (agent_name, started_at);

CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  sender TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  thread_id TEXT,
  idempotency_key TEXT,
  created_at BIGINT NOT NULL
) WITHOUT ROWID;

CREATE UNIQUE INDEX messages_idempotency ON messages (sender, idempotency_key) WHERE idempotency_key IS NOT NULL;

CREATE INDEX messages_by_sender ON messages (sender, created_at);

CREATE TABLE deliveries (
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  recipient TEXT NOT NULL,
  seq BIGINT NOT NULL,
  state TEXT NOT NULL,
  session_id TEXT,
  acked_at BIGINT,
  closed_at BIGINT,
  PRIMARY KEY (recipient, seq),
  UNIQUE (message_id, recipient)
) WITHOUT ROWID;

CREATE INDEX deliveries_pending_by_session ON deliveries (session_id, seq) WHERE state = 'pending';
