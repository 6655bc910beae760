// Reviewer, writer and adopted-pane leases as this host's records: they name panes, so they never leave the
// host. A writer's claim on branch, worktree and scopes is mirrored in the shared store (writer-claims).
import { AppError } from "../../errors.ts";
import { type HerdrStateDirs, listJson, readJson, writeJsonAtomic } from "../../local/herdr-state.ts";
import type { AgentIdentity } from "./agent-identity.ts";
import type { HerdrServerRef } from "./herdr-server.ts";

export type LeaseType = "reviewer" | "writer" | "adopted";
export type LeaseState =
  | "provisioning"
  | "active"
  | "closing"
  | "closed"
  | "close_failed"
  | "releasing"
  | "released"
  | "release_failed"
  | "failed_closed"
  | "orphaned"
  /** Its pane was observed gone (Herdr answered pane_not_found): ended by reconcile, reservations released after. */
  | "lost";

/** A lease in any other state still holds its agent (and, for writers, its scopes) until someone inspects it. */
const ENDED: readonly LeaseState[] = ["closed", "released", "failed_closed", "lost"];
export const isHeld = (state: LeaseState): boolean => !ENDED.includes(state);

export interface WriterFacts {
  repo_key: string;
  worktree: string;
  branch: string;
  base_commit: string;
  head: string;
  status_sha256: string;
  owned_scopes: string[];
  blocked_scopes: string[];
  protected_branches: string[];
  ticket_ref: string;
}

export interface LeaseRecord {
  version: 1;
  lease_id: string;
  type: LeaseType;
  controller_id: string;
  state: LeaseState;
  purpose: string;
  authority_ref: string | null;
  authority_sha256: string | null;
  agent_name: string;
  agent_kind: string;
  cwd: string;
  pane_id: string | null;
  terminal_id: string | null;
  workspace_id: string | null;
  /** The Herdr server the lease was made under: its pane is observed only through that server. */
  herdr_server?: HerdrServerRef;
  created_at: number;
  updated_at: number;
  /** SHA-256 of the output captured just before close/release (the output itself is not kept). */
  capture_sha256?: string;
  failure?: string;
  /** The content-free checkpoint given at release/close: a reference and its SHA-256. */
  checkpoint_ref?: string;
  checkpoint_sha256?: string;
  /** The passed verification receipt a writer's release cited. */
  verification_id?: string;
  writer?: WriterFacts;
}

export const LEASE_ID_PATTERN = /^lease_[0-9a-f]{32}$/;

export const readLease = (dirs: HerdrStateDirs, leaseId: string): LeaseRecord | undefined =>
  LEASE_ID_PATTERN.test(leaseId) ? readJson<LeaseRecord>(dirs.leases, `${leaseId}.json`) : undefined;

export const saveLease = (dirs: HerdrStateDirs, lease: LeaseRecord, now: number): LeaseRecord => {
  const next = { ...lease, updated_at: now };
  writeJsonAtomic(dirs.leases, `${lease.lease_id}.json`, next, { durable: true });
  return next;
};

export const listLeases = (dirs: HerdrStateDirs): LeaseRecord[] =>
  listJson<LeaseRecord>(dirs.leases).sort((a, b) => a.created_at - b.created_at);

/** The lease, if it exists, is of this type and belongs to this controller. */
export const ownedLease = (dirs: HerdrStateDirs, leaseId: string, controllerId: string, type: LeaseType): LeaseRecord => {
  const lease = readLease(dirs, leaseId);
  if (!lease || lease.controller_id !== controllerId || lease.type !== type) {
    throw new AppError("NOT_FOUND", `no ${type} lease ${leaseId} of this controller on this host`);
  }
  return lease;
};

export const leaseIdentity = (lease: LeaseRecord): AgentIdentity => {
  if (!lease.pane_id || !lease.terminal_id) {
    throw new AppError("CONFLICT", `lease ${lease.lease_id} never reached an agent (state ${lease.state})`);
  }
  return {
    pane_id: lease.pane_id,
    terminal_id: lease.terminal_id,
    agent_name: lease.agent_name,
    agent_kind: lease.agent_kind,
    cwd: lease.cwd,
  };
};

export const requireActive = (lease: LeaseRecord): void => {
  if (lease.state !== "active") {
    throw new AppError("CONFLICT", `lease ${lease.lease_id} is ${lease.state}, not active`);
  }
};

/** Held leases of this host with that agent name (whatever their controller): names must stay unique. */
export const heldLeasesNamed = (dirs: HerdrStateDirs, name: string): LeaseRecord[] =>
  listLeases(dirs).filter((lease) => lease.agent_name === name && isHeld(lease.state));
