-- Full-text search over message bodies (agent-search-cli). Words are runs of letters and digits, matched whole and
-- case-insensitively, accents kept: the same words PostgreSQL's index below finds, so both stores match alike.
-- Messages are never deleted or edited, so an insert trigger keeps the index complete.
CREATE VIRTUAL TABLE message_search USING fts5(message_id UNINDEXED, body, tokenize = 'unicode61 remove_diacritics 0');

INSERT INTO message_search (message_id, body) SELECT id, body FROM messages;

CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
  INSERT INTO message_search (message_id, body) VALUES (new.id, new.body);
END;
