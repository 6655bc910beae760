-- Search whose cost follows the caller's own mail, not the store's size (agent-search-cli). A query for a word that
-- is common across the store starts from the caller's messages and asks the FTS5 index about each one by rowid, so
-- every message needs its index rowid: message_search_rows maps a message id to it (messages has no rowid).
-- The index itself is kept as it is (same rowids, same words), so bm25 ranks exactly as before.
CREATE TABLE message_search_rows (
  search_rowid INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE
);

INSERT INTO message_search_rows (search_rowid, message_id) SELECT rowid, message_id FROM message_search;

-- The row is mapped first and the index entry takes the mapped rowid, so the two cannot disagree.
DROP TRIGGER messages_search_insert;

CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
  INSERT INTO message_search_rows (message_id) VALUES (new.id);
  INSERT INTO message_search (rowid, message_id, body)
    SELECT search_rowid, new.id, new.body FROM message_search_rows WHERE message_id = new.id;
END;
