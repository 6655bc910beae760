-- The start of every authenticated mesh call asks whether any open session's ttl has run out: an index on the
-- open sessions' expiry answers that without reading every open session.
CREATE INDEX sessions_open_by_expiry ON sessions (expires_at) WHERE ended_at IS NULL;
