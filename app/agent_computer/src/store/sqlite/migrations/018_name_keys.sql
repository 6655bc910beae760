-- Names that cannot impersonate: name_key is the name as it compares (lower case, trailing . _ - dropped), one
-- registered name per key. Of names registered before this that share a key, the earliest keeps it; the later
-- ones keep working with no key, and no new name can take theirs.
ALTER TABLE agents ADD COLUMN name_key TEXT;

UPDATE agents SET name_key = rtrim(lower(name), '._-')
  WHERE NOT EXISTS (
    SELECT 1 FROM agents o
    WHERE rtrim(lower(o.name), '._-') = rtrim(lower(agents.name), '._-')
      AND (o.created_at < agents.created_at OR (o.created_at = agents.created_at AND o.name < agents.name))
  );

CREATE UNIQUE INDEX agents_name_key ON agents (name_key);

-- A revoked name starts clean for its next holder: messages older than holder_since are not the holder's to see.
-- A name revoked before this gets the time of its revocation (its row's last update), so history stays behind.
ALTER TABLE agents ADD COLUMN holder_since BIGINT NOT NULL DEFAULT 0;

UPDATE agents SET holder_since = CASE WHEN auth_state = 'revoked' THEN updated_at + 1 ELSE created_at END;

-- A channel with no members ends: emptied_at is when it was found empty; its name is free again some time later.
ALTER TABLE channels ADD COLUMN emptied_at BIGINT;
