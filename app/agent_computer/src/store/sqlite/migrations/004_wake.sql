-- Auto-wake tokens. Only the SHA-256 of a token is kept. Nothing host-local
-- is stored here: the Herdr pane of an armed agent lives in the state directory of the host that armed it.
-- state: outstanding (prompt sent, token unused) | used | expired | settled (its messages were acked without
-- it) | failed (the prompt could not be submitted). Times are epoch milliseconds.
CREATE TABLE wake_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  agent_name TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  first_seq BIGINT NOT NULL,
  last_seq BIGINT NOT NULL,
  message_count INTEGER NOT NULL,
  cursor_seq BIGINT NOT NULL,
  state TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);

CREATE INDEX wake_tokens_by_session ON wake_tokens (session_id, state);

CREATE INDEX wake_tokens_by_agent_time ON wake_tokens (agent_name, created_at);

-- At most one outstanding wake per agent, whichever watcher or host issued it.
CREATE UNIQUE INDEX wake_tokens_one_outstanding ON wake_tokens (agent_name) WHERE state = 'outstanding';
