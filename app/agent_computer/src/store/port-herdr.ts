// The Herdr coordination part of the store port. Only what must be exclusive across every host that shares the
// store lives here: a controller's lease (fence stored as a SHA-256, never raw) and writer claims on a repository's
// branches and path scopes. Nothing here names a Herdr pane or a process: those stay in this host's state dir.

export type ControllerLeaseState = "active" | "released";

export interface ControllerLeaseRecord {
  controllerId: string;
  /** Part of the credential: kept raw only in the 0600 credential file of the holding host. */
  leaseId: string;
  /** SHA-256 (hex) of the fence token; the token itself is never stored here. */
  fenceHash: string;
  /** Bumped by every acquire and resume, so a superseded holder is fenced. */
  generation: number;
  hostId: string;
  authorityRef: string;
  authoritySha256: string;
  state: ControllerLeaseState;
  acquiredAt: number;
  renewedAt: number;
  expiresAt: number;
  releasedAt: number | null;
  checkpointRef: string | null;
  checkpointSha256: string | null;
}

export type WriterClaimState =
  | "provisioning"
  | "active"
  | "releasing"
  | "released"
  | "failed_closed"
  | "orphaned"
  | "release_failed"
  /** The writer's pane was observed gone; the claim no longer holds branch, worktree or scopes. */
  | "lost";

export interface WriterClaimRecord {
  leaseId: string;
  /** SHA-256 over the repository's root commits: the same for every clone and worktree of it. */
  repoKey: string;
  controllerId: string;
  hostId: string;
  worktree: string;
  branch: string;
  ownedScopes: string[];
  blockedScopes: string[];
  ticketRef: string;
  authorityRef: string;
  authoritySha256: string;
  state: WriterClaimState;
  checkpointRef: string | null;
  checkpointSha256: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface HerdrRepo {
  controllerLease(controllerId: string, lock?: boolean): Promise<ControllerLeaseRecord | undefined>;
  /** Throws UniqueViolation when the controller already has a row (a concurrent acquire won). */
  insertControllerLease(lease: ControllerLeaseRecord): Promise<void>;
  /** Compare-and-swap on the current lease id; false when another acquire/resume got there first. */
  replaceControllerLease(expectedLeaseId: string, lease: ControllerLeaseRecord): Promise<boolean>;
  /** Serialises writer admission per repository (a row lock on PostgreSQL; SQLite serialises writers anyway). */
  lockWriterRepo(repoKey: string): Promise<void>;
  /** Claims of the repository that still hold their branch, worktree and scopes (not released, not failed_closed). */
  heldWriterClaims(repoKey: string): Promise<WriterClaimRecord[]>;
  insertWriterClaim(claim: WriterClaimRecord): Promise<void>;
  writerClaim(leaseId: string): Promise<WriterClaimRecord | undefined>;
  /** Moves a claim to `to` only from one of `from`; false when it was elsewhere. */
  moveWriterClaim(
    leaseId: string,
    from: readonly WriterClaimState[],
    to: WriterClaimState,
    patch: { checkpointRef?: string; checkpointSha256?: string },
    now: number,
  ): Promise<boolean>;
  writerClaimsOf(controllerId: string): Promise<WriterClaimRecord[]>;
}
