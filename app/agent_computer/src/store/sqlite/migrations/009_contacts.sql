-- Contact policy: who may message an agent. An agent without a row here is open to every sender. A row exists once
-- the agent sets its policy or names a contact; it goes with the agent (unregistering frees the name of its lists).
CREATE TABLE contact_policies (
  agent_name TEXT PRIMARY KEY REFERENCES agents(name) ON DELETE CASCADE,
  policy TEXT NOT NULL CHECK (policy IN ('open', 'contacts-only', 'closed')),
  updated_at BIGINT NOT NULL
) WITHOUT ROWID;

-- Contacts by name: 'allow' lets a sender through contacts-only; 'block' refuses it under every policy. A name may
-- be listed before any agent holds it.
CREATE TABLE contacts (
  owner TEXT NOT NULL REFERENCES contact_policies(agent_name) ON DELETE CASCADE,
  other TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('allow', 'block')),
  created_at BIGINT NOT NULL,
  PRIMARY KEY (owner, other)
) WITHOUT ROWID;
