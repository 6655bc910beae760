-- Channels: named rooms agents join by name. A post is a message with its channel named, delivered to every member
-- but its poster through the ordinary inbox. Membership belongs to the agent, not a session, so it survives
-- re-check-in; it goes with the agent when the name is unregistered.
CREATE TABLE channels (
  name TEXT PRIMARY KEY,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL
) WITHOUT ROWID;

CREATE TABLE channel_members (
  channel TEXT NOT NULL REFERENCES channels(name) ON DELETE CASCADE,
  agent_name TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
  joined_at BIGINT NOT NULL,
  PRIMARY KEY (channel, agent_name)
) WITHOUT ROWID;

CREATE INDEX channel_members_by_agent ON channel_members (agent_name);

ALTER TABLE messages ADD COLUMN channel TEXT;

CREATE INDEX messages_by_channel ON messages (channel, created_at) WHERE channel IS NOT NULL;
