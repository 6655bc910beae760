-- Identity: fixed-window rate counters shared by every process on the store, and auto-routed tasks.
-- Times are epoch milliseconds; the agents table already holds the registration columns (001).
CREATE TABLE rate_buckets (
  bucket TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  hits INTEGER NOT NULL,
  PRIMARY KEY (bucket, window_start)
);

CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  required_caps TEXT NOT NULL DEFAULT '[]',
  priority TEXT NOT NULL,
  priority_rank INTEGER NOT NULL,
  state TEXT NOT NULL,
  poster TEXT NOT NULL,
  assignee TEXT,
  result TEXT,
  reason TEXT,
  version INTEGER NOT NULL DEFAULT 1,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE INDEX tasks_queue ON tasks (priority_rank DESC, created_at) WHERE state = 'queued';

CREATE INDEX tasks_open_by_assignee ON tasks (assignee) WHERE state IN ('assigned', 'accepted');

CREATE INDEX tasks_by_poster ON tasks (poster, created_at);

CREATE INDEX tasks_by_assignee ON tasks (assignee, created_at);
