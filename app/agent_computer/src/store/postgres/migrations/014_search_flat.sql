-- Search whose cost follows the caller's own mail, not the store's size (agent-search-cli). The words of a body are
-- stored once, when the message is written, so neither the index recheck nor ts_rank recomputes them per match,
-- and a query that starts from the caller's messages tests each one against the stored words. The expression is
-- migration 011's, so the same words match and ts_rank gives the same scores.
ALTER TABLE messages ADD COLUMN body_words tsvector
  GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(body, '[^[:alnum:]]+', ' ', 'g'))) STORED;

DROP INDEX messages_search;

-- No pending list (fastupdate off): with it, new messages' words wait in an unsorted list that every search reads
-- through until a vacuum or a full list merges it, up to gin_pending_list_limit (4 MB) of it; a send instead
-- writes its few words into the index itself.
CREATE INDEX messages_search ON messages USING GIN (body_words) WITH (fastupdate = off);
