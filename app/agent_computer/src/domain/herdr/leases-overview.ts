// Herdr leases as the operator's console shows them: controller leases still held and writer claims still holding
// their branch and scopes, on every host that shares the store. A controller's lease id and fence are credentials
// and are left out; a writer claim's lease id names its reservations (herdr-writer:<id>) and is shown.
import { herdrStateDirs } from "../../local/herdr-state.ts";
import type { Paths } from "../../paths.ts";
import type { Deps } from "../deps.ts";
import { iso } from "../deps.ts";
import { isHeld, listLeases } from "./leases.ts";

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

/** A pane lease of this host (reviewer, writer or adopted): its records name panes, so only this host has them. */
export interface PaneLeaseView {
  lease_id: string;
  type: string;
  controller_id: string;
  agent_name: string;
  agent_kind: string;
  state: string;
  purpose: string;
  pane_id: string | null;
  updated_at: string;
}

export interface LeasesOverview {
  controllers: ControllerLeaseView[];
  writers: WriterClaimView[];
  /** Held pane leases of this host, newest first. */
  panes: PaneLeaseView[];
}

const heldPaneLeases = (paths: Paths, limit: number): PaneLeaseView[] =>
  listLeases(herdrStateDirs(paths))
    .filter((lease) => isHeld(lease.state))
    .reverse()
    .slice(0, limit)
    .map((lease) => ({
      lease_id: lease.lease_id,
      type: lease.type,
      controller_id: lease.controller_id,
      agent_name: lease.agent_name,
      agent_kind: lease.agent_kind,
      state: lease.state,
      purpose: lease.purpose,
      pane_id: lease.pane_id,
      updated_at: iso(lease.updated_at),
    }));

export const leasesOverview = async (deps: Deps, paths: Paths, limit: number): Promise<LeasesOverview> =>
  deps.store.read(async (tx) => ({
    panes: heldPaneLeases(paths, limit),
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
