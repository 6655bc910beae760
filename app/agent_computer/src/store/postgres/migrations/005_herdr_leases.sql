-- Herdr coordination state (PostgreSQL) that must be exclusive across every host sharing this store: controller leases
-- (the fence only as a SHA-256) and writer claims on a repository's branches and path scopes. Pane ids, process
-- identities and raw credentials never come here; they stay in each host's state directory. Times are epoch ms.
CREATE TABLE herdr_controller_leases (
  controller_id TEXT PRIMARY KEY,
  lease_id TEXT NOT NULL,
  fence_hash TEXT NOT NULL,
  generation INTEGER NOT NULL,
  host_id TEXT NOT NULL,
  authority_ref TEXT NOT NULL,
  authority_sha256 TEXT NOT NULL,
  state TEXT NOT NULL,
  acquired_at BIGINT NOT NULL,
  renewed_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  released_at BIGINT,
  checkpoint_ref TEXT,
  checkpoint_sha256 TEXT
);

-- One lockable row per repository, so two hosts cannot admit overlapping writers at the same moment.
CREATE TABLE herdr_writer_repos (
  repo_key TEXT PRIMARY KEY
);

CREATE TABLE herdr_writer_claims (
  lease_id TEXT PRIMARY KEY,
  repo_key TEXT NOT NULL REFERENCES herdr_writer_repos(repo_key),
  controller_id TEXT NOT NULL,
  host_id TEXT NOT NULL,
  worktree TEXT NOT NULL,
  branch TEXT NOT NULL,
  owned_scopes TEXT NOT NULL,
  blocked_scopes TEXT NOT NULL,
  ticket_ref TEXT NOT NULL,
  authority_ref TEXT NOT NULL,
  authority_sha256 TEXT NOT NULL,
  state TEXT NOT NULL,
  checkpoint_ref TEXT,
  checkpoint_sha256 TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE INDEX herdr_writer_claims_held ON herdr_writer_claims (repo_key) WHERE state NOT IN ('released', 'failed_closed');

CREATE INDEX herdr_writer_claims_by_controller ON herdr_writer_claims (controller_id, created_at);
