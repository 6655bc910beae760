-- Retention (agent-computer-admin prune, the worker's store retention) takes the oldest messages first, a batch at
-- a time: this index lets each batch start at the oldest instead of scanning and sorting the whole table.
CREATE INDEX messages_by_age ON messages (created_at, id);
