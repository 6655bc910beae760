-- Threads: a reply names the message it answers (reply_to) and inherits its thread; a thread is read back by its
-- id, which is the --thread label the first sender gave, or else the id of the message the first reply answered.
ALTER TABLE messages ADD COLUMN reply_to TEXT;

CREATE INDEX messages_by_thread ON messages (thread_id, created_at) WHERE thread_id IS NOT NULL;
