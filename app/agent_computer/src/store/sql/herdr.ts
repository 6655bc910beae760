// SQL for the Herdr coordination repository, written once for both dialects ($n placeholders).
import type { ControllerLeaseRecord, HerdrRepo, WriterClaimRecord, WriterClaimState } from "../port-herdr.ts";
import { type Db, jsonList, num, numOrNull, placeholders, type Row, str, strOrNull } from "./db.ts";

/** States in which a claim no longer holds its branch, worktree and scopes. */
export const RELEASED_STATES = ["released", "failed_closed", "lost"] as const;

export const toController = (r: Row): ControllerLeaseRecord => ({
  controllerId: str(r.controller_id),
  leaseId: str(r.lease_id),
  fenceHash: str(r.fence_hash),
  generation: num(r.generation),
  hostId: str(r.host_id),
  authorityRef: str(r.authority_ref),
  authoritySha256: str(r.authority_sha256),
  state: str(r.state) as ControllerLeaseRecord["state"],
  acquiredAt: num(r.acquired_at),
  renewedAt: num(r.renewed_at),
  expiresAt: num(r.expires_at),
  releasedAt: numOrNull(r.released_at),
  checkpointRef: strOrNull(r.checkpoint_ref),
  checkpointSha256: strOrNull(r.checkpoint_sha256),
});

export const toClaim = (r: Row): WriterClaimRecord => ({
  leaseId: str(r.lease_id),
  repoKey: str(r.repo_key),
  controllerId: str(r.controller_id),
  hostId: str(r.host_id),
  worktree: str(r.worktree),
  branch: str(r.branch),
  ownedScopes: jsonList(r.owned_scopes),
  blockedScopes: jsonList(r.blocked_scopes),
  ticketRef: str(r.ticket_ref),
  authorityRef: str(r.authority_ref),
  authoritySha256: str(r.authority_sha256),
  state: str(r.state) as WriterClaimState,
  checkpointRef: strOrNull(r.checkpoint_ref),
  checkpointSha256: strOrNull(r.checkpoint_sha256),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

const controllerParams = (l: ControllerLeaseRecord): unknown[] => [
  l.controllerId,
  l.leaseId,
  l.fenceHash,
  l.generation,
  l.hostId,
  l.authorityRef,
  l.authoritySha256,
  l.state,
  l.acquiredAt,
  l.renewedAt,
  l.expiresAt,
  l.releasedAt,
  l.checkpointRef,
  l.checkpointSha256,
];

export const herdrRepo = (db: Db): HerdrRepo => ({
  controllerLease: async (controllerId, lock = false) => {
    const row = await db.get<Row>(`SELECT * FROM herdr_controller_leases WHERE controller_id = $1${lock ? db.forUpdate : ""}`, [
      controllerId,
    ]);
    return row ? toController(row) : undefined;
  },
  insertControllerLease: async (lease) => {
    await db.run(
      `INSERT INTO herdr_controller_leases (controller_id, lease_id, fence_hash, generation, host_id, authority_ref,
         authority_sha256, state, acquired_at, renewed_at, expires_at, released_at, checkpoint_ref, checkpoint_sha256)
       VALUES (${placeholders(14)})`,
      controllerParams(lease),
    );
  },
  replaceControllerLease: async (expectedLeaseId, lease) =>
    (await db.run(
      `UPDATE herdr_controller_leases SET lease_id = $2, fence_hash = $3, generation = $4, host_id = $5,
         authority_ref = $6, authority_sha256 = $7, state = $8, acquired_at = $9, renewed_at = $10, expires_at = $11,
         released_at = $12, checkpoint_ref = $13, checkpoint_sha256 = $14
       WHERE controller_id = $1 AND lease_id = $15`,
      [...controllerParams(lease), expectedLeaseId],
    )) === 1,
  lockWriterRepo: async (repoKey) => {
    await db.run("INSERT INTO herdr_writer_repos (repo_key) VALUES ($1) ON CONFLICT (repo_key) DO NOTHING", [repoKey]);
    await db.get(`SELECT repo_key FROM herdr_writer_repos WHERE repo_key = $1${db.forUpdate}`, [repoKey]);
  },
  heldWriterClaims: async (repoKey) =>
    (
      await db.all<Row>(
        `SELECT * FROM herdr_writer_claims WHERE repo_key = $1 AND state NOT IN ($2, $3, $4) ORDER BY created_at`,
        [repoKey, ...RELEASED_STATES],
      )
    ).map(toClaim),
  insertWriterClaim: async (c) => {
    await db.run(
      `INSERT INTO herdr_writer_claims (lease_id, repo_key, controller_id, host_id, worktree, branch, owned_scopes,
         blocked_scopes, ticket_ref, authority_ref, authority_sha256, state, checkpoint_ref, checkpoint_sha256,
         created_at, updated_at)
       VALUES (${placeholders(16)})`,
      [
        c.leaseId,
        c.repoKey,
        c.controllerId,
        c.hostId,
        c.worktree,
        c.branch,
        JSON.stringify(c.ownedScopes),
        JSON.stringify(c.blockedScopes),
        c.ticketRef,
        c.authorityRef,
        c.authoritySha256,
        c.state,
        c.checkpointRef,
        c.checkpointSha256,
        c.createdAt,
        c.updatedAt,
      ],
    );
  },
  writerClaim: async (leaseId) => {
    const row = await db.get<Row>("SELECT * FROM herdr_writer_claims WHERE lease_id = $1", [leaseId]);
    return row ? toClaim(row) : undefined;
  },
  moveWriterClaim: async (leaseId, from, to, patch, now) =>
    (await db.run(
      `UPDATE herdr_writer_claims SET state = $2, updated_at = $3,
         checkpoint_ref = COALESCE($4, checkpoint_ref), checkpoint_sha256 = COALESCE($5, checkpoint_sha256)
       WHERE lease_id = $1 AND state IN (${placeholders(from.length, 6)})`,
      [leaseId, to, now, patch.checkpointRef ?? null, patch.checkpointSha256 ?? null, ...from],
    )) === 1,
  writerClaimsOf: async (controllerId) =>
    (await db.all<Row>("SELECT * FROM herdr_writer_claims WHERE controller_id = $1 ORDER BY created_at", [controllerId])).map(
      toClaim,
    ),
});
