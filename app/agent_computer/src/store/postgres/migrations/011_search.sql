-- Full-text search over message bodies (agent-search-cli). Words are runs of letters and digits, matched whole and
-- case-insensitively, accents kept: every other character is turned into a space before the 'simple' parser (no
-- stemming, no stop words) sees the text, so PostgreSQL finds the same words SQLite's FTS5 unicode61 index does.
-- An expression index: no column to carry in every SELECT of messages.
CREATE INDEX messages_search ON messages USING GIN (to_tsvector('simple', regexp_replace(body, '[^[:alnum:]]+', ' ', 'g')));
