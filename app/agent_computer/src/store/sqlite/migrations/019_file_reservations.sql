-- File reservations: an agent's lease on path patterns (gitignore-style globs, relative to the repository root) of
-- one repository, exclusive or shared, until expires_at. repo_key names the repository the same way on every host
-- (domain/reservations/repository.ts). A row stops counting once released_at is set or expires_at has passed.
-- Times are epoch ms.

-- One lockable row per repository: a reservation locks it before it checks for conflicts, so two overlapping
-- reservations racing from any host are decided one after the other.
CREATE TABLE reservation_repos (
  repo_key TEXT PRIMARY KEY
);

CREATE TABLE file_reservations (
  id TEXT PRIMARY KEY,
  repo_key TEXT NOT NULL REFERENCES reservation_repos(repo_key),
  holder TEXT NOT NULL,
  patterns TEXT NOT NULL,
  exclusive INTEGER NOT NULL,
  reason TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  released_at BIGINT
);

CREATE INDEX file_reservations_live ON file_reservations (repo_key, expires_at) WHERE released_at IS NULL;

CREATE INDEX file_reservations_by_holder ON file_reservations (holder) WHERE released_at IS NULL;
