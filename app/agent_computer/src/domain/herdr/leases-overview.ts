// Herdr leases as the operator's console shows them: controller leases still held and writer claims still holding
// their branch and scopes, on every host that shares the store. A controller's lease id and fence are credentials
// and are left out; a writer claim's lease id names its reservations (herdr-writer:<id>) and is shown.
import type { Deps } from "../deps.ts";
import { iso } from "../deps.ts";

export interface ControllerLeaseView {
  controller_id: string;
  host_id: string;
  generation: number;
  acquired_at: string;
  renewed_at: string;
  expires_at: string;
}

export interface WriterClaimView {
  lease_id: string;
  controller_id: string;
  host_id: string;
  branch: string;
  worktree: string;
  owned_scopes: string[];
  state: string;
  ticket_ref: string;
  created_at: string;
}

export interface LeasesOverview {
  controllers: ControllerLeaseView[];
  writers: WriterClaimView[];
}

export const leasesOverview = async (deps: Deps, limit: number): Promise<LeasesOverview> =>
  deps.store.read(async (tx) => ({
    controllers: (await tx.overview.controllerLeases(limit)).map((l) => ({
      controller_id: l.controllerId,
      host_id: l.hostId,
      generation: l.generation,
      acquired_at: iso(l.acquiredAt),
      renewed_at: iso(l.renewedAt),
      expires_at: iso(l.expiresAt),
    })),
    writers: (await tx.overview.heldWriterClaims(limit)).map((c) => ({
      lease_id: c.leaseId,
      controller_id: c.controllerId,
      host_id: c.hostId,
      branch: c.branch,
      worktree: c.worktree,
      owned_scopes: c.ownedScopes,
      state: c.state,
      ticket_ref: c.ticketRef,
      created_at: iso(c.createdAt),
    })),
  }));
