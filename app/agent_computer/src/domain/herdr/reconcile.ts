// Reconcile: a held lease whose agent is gone ends as `lost`, and only then are its reservations released (a writer's
// claim on branch, worktree and scopes; the receipts that still block its target). "Gone" is Herdr's own answer
// pane_not_found for the lease's exact pane, or the pane holding no agent at all: its agent exited, or a cold
// restart of Herdr restored the pane without it (under a new server, only once Herdr had the time to re-detect
// it). A failed read, a server that is down, or another agent in the pane leaves the lease as it is.
// Idempotent: a lost lease is no longer held, and a run cut short between the two steps is finished by the next.
import type { HerdrAgent } from "../../adapters/herdr/client.ts";
import type { WriterClaimState } from "../../store/port-herdr.ts";
import { releaseWriterScopes } from "../reservations/writer-lane-holder.ts";
import { loadAuthority } from "./controller-authority.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import { observeAcrossEpoch, RESTORE_GRACE_MS } from "./herdr-epoch.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { otherServer } from "./herdr-server.ts";
import { isHeld, type LeaseRecord, listLeases, readLease, saveLease } from "./leases.ts";
import { observePane } from "./pane-presence.ts";
import { outstandingFor, tokenOf, transitionReceipt } from "./receipts.ts";

/** Every claim state that still holds branch, worktree and scopes. */
const HELD_CLAIM_STATES: readonly WriterClaimState[] = ["provisioning", "active", "releasing", "release_failed", "orphaned"];

export type ReconcileOutcome = "lost" | "would_lose" | "kept" | "unknown";

export interface ReconcileEntry {
  lease_id: string;
  type: LeaseRecord["type"];
  agent_name: string;
  pane_id: string | null;
  state_before: LeaseRecord["state"];
  outcome: ReconcileOutcome;
  /** What was observed, in words: the answer Herdr gave for the exact pane. */
  evidence: string;
  released: { writer_claim: boolean; receipts: string[] };
}

export interface ReconcileResult {
  controller_id: string;
  dry_run: boolean;
  leases: ReconcileEntry[];
}

/** Releases what a lost lease still reserves; safe to repeat. */
const releaseReservations = async (deps: HerdrDeps, lease: LeaseRecord): Promise<ReconcileEntry["released"]> => {
  const receipts: string[] = [];
  for (const receipt of outstandingFor(deps.dirs, lease.lease_id)) {
    const failed = await transitionReceipt(deps, receipt.receipt_id, ["reserved", "pending"], {
      state: "failed",
      failure: "identity_changed",
    });
    if (failed.state === "failed") receipts.push(tokenOf(receipt));
  }
  let writerClaim = false;
  if (lease.type === "writer") {
    const { store } = deps;
    writerClaim = await store.write(async (tx) => {
      const lost = await tx.herdr.moveWriterClaim(lease.lease_id, HELD_CLAIM_STATES, "lost", {}, deps.now());
      // Its scopes stop being reserved with it, for agents outside Herdr and the git guard too.
      await releaseWriterScopes(tx, lease.lease_id, deps.now());
      return lost;
    });
  }
  return { writer_claim: writerClaim, receipts };
};

const entryOf = (lease: LeaseRecord, outcome: ReconcileOutcome, evidence: string): ReconcileEntry => ({
  lease_id: lease.lease_id,
  type: lease.type,
  agent_name: lease.agent_name,
  pane_id: lease.pane_id,
  state_before: lease.state,
  outcome,
  evidence,
  released: { writer_claim: false, receipts: [] },
});

const unknownEntry = (lease: LeaseRecord, error: unknown): ReconcileEntry => {
  const failure = herdrFailure(error);
  const why = failure instanceof Error ? failure.message : String(failure);
  return entryOf(lease, "unknown", `Herdr could not be read, so nothing is concluded: ${why}`);
};

const reconcileOne = async (deps: HerdrDeps, lease: LeaseRecord, dryRun: boolean): Promise<ReconcileEntry> => {
  if (!lease.pane_id) return entryOf(lease, "kept", "no pane was ever recorded for it");
  const elsewhere = otherServer(lease.herdr_server, deps.env);
  if (elsewhere) return entryOf(lease, "unknown", `nothing is concluded: ${elsewhere}`);
  const pane = await observePane(deps.herdr, lease.pane_id);
  if (pane.kind === "unknown") return unknownEntry(lease, pane.error);
  let evidence = `Herdr answered pane_not_found for pane ${lease.pane_id}`;
  if (pane.kind === "present") {
    if (!lease.terminal_id) return entryOf(lease, "kept", `pane ${lease.pane_id} exists; the lease never reached an agent`);
    let agent: HerdrAgent | undefined;
    try {
      agent = await observeAcrossEpoch(deps.herdr, lease.pane_id, lease.terminal_id, Date.now() + RESTORE_GRACE_MS);
    } catch (error) {
      return unknownEntry(lease, error);
    }
    if (agent) return entryOf(lease, "kept", `pane ${lease.pane_id} hosts ${agent.name ?? "an unnamed agent"} (${agent.status})`);
    evidence = `pane ${lease.pane_id} exists but runs no agent (the leased agent exited or did not survive a Herdr restart)`;
  }
  if (dryRun) return entryOf(lease, "would_lose", evidence);
  const lost = await reserve(deps, [lease.type], async () => {
    const current = readLease(deps.dirs, lease.lease_id);
    if (!current || !isHeld(current.state)) return current;
    const failure = pane.kind === "gone" ? "pane_gone" : "agent_gone";
    return saveLease(deps.dirs, { ...current, state: "lost", failure }, deps.now());
  });
  if (lost?.state !== "lost") return entryOf(lease, "kept", `the lease moved on meanwhile (${lost?.state ?? "gone"})`);
  return { ...entryOf(lease, "lost", evidence), released: await releaseReservations(deps, lost) };
};

export const reconcileLeases = async (deps: HerdrDeps, dryRun: boolean): Promise<ReconcileResult> => {
  const authority = await loadAuthority(deps);
  const mine = listLeases(deps.dirs).filter((lease) => lease.controller_id === authority.controllerId);
  const entries: ReconcileEntry[] = [];
  for (const lease of mine) {
    if (isHeld(lease.state)) {
      if (!dryRun) await authority.verify();
      entries.push(await reconcileOne(deps, lease, dryRun));
    } else if (lease.state === "lost" && !dryRun) {
      // A run cut short after ending the lease: release what it still reserves, and say so only if anything was.
      const released = await releaseReservations(deps, lease);
      if (released.writer_claim || released.receipts.length > 0) {
        entries.push({ ...entryOf(lease, "lost", "already lost; its reservations were still held"), released });
      }
    }
  }
  return { controller_id: authority.controllerId, dry_run: dryRun, leases: entries };
};
