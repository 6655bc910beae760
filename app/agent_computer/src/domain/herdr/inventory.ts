// Read-only views: the bridge's reservation locks, this controller's leases with their live identity, and its
// receipts. None of them loads the credential; none shows a lease id of the controller, a fence, a lock owner's
// pid or lock id.

import type { HerdrAgent } from "../../adapters/herdr/client.ts";
import { currentBootId } from "../../adapters/process-ancestry.ts";
import { readBinding } from "../../local/controller-files.ts";
import type { HerdrStateDirs } from "../../local/herdr-state.ts";
import { iso } from "../deps.ts";
import { sameIdentity } from "./agent-identity.ts";
import type { CloseResult } from "./close-leased.ts";
import { controllerIdFrom } from "./controller-caller.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { leaseRefOf } from "./lease-ref.ts";
import { isHeld, type LeaseRecord, leaseIdentity, listLeases } from "./leases.ts";
import { listReceipts, outstandingFor, tokenOf } from "./receipts.ts";
import { inspectLock, RESERVATION_LOCKS } from "./reservation-lock.ts";

export const CAPABILITIES = [
  "controller-fencing-v1",
  "controller-cli-v1",
  "handoff-receipts-v1",
  "batch-handoff-v1",
  "owned-reviewer-tabs-v1",
  "owned-worker-lanes-v1",
  "owned-pane-cleanup-v1",
  "controller-takeover-v1",
  "lease-inventory-v1",
  "lease-reconciliation-v1",
  "owned-reviewer-sweep-v1",
  "wait-any-v1",
] as const;

export const bridgeStatus = (local: { dirs: HerdrStateDirs; hostId: string; now: number }) => ({
  name: "herdr-lease-cli",
  protocol: 1,
  capabilities: [...CAPABILITIES],
  process_binding: currentBootId() ? "linux-procfs" : "unavailable",
  reservation_locks: Object.fromEntries(
    RESERVATION_LOCKS.map((name) => [name, inspectLock(local.dirs.locks, name, { hostId: local.hostId, now: local.now })]),
  ),
});

export const leaseView = (lease: LeaseRecord) => ({
  lease_id: lease.lease_id,
  type: lease.type,
  state: lease.state,
  agent_name: lease.agent_name,
  agent_kind: lease.agent_kind,
  cwd: lease.cwd,
  pane_id: lease.pane_id,
  purpose: lease.purpose,
  created_at: iso(lease.created_at),
  updated_at: iso(lease.updated_at),
  ...(lease.writer
    ? {
        writer: {
          worktree: lease.writer.worktree,
          branch: lease.writer.branch,
          base_commit: lease.writer.base_commit,
          head: lease.writer.head,
          owned_scopes: lease.writer.owned_scopes,
          blocked_scopes: lease.writer.blocked_scopes,
        },
      }
    : {}),
  ...(lease.failure ? { failure: lease.failure } : {}),
  ...(lease.verification_id ? { verification_id: lease.verification_id } : {}),
});

/** What a command that closed a leased pane reports: the lease, the capture's digest and the seq it observed. */
export const closeView = (result: CloseResult) => ({
  lease: leaseView(result.lease),
  capture_sha256: result.capture_sha256,
  observed_seq: result.observed_seq,
});

const liveOf = (lease: LeaseRecord, agents: HerdrAgent[] | undefined) => {
  if (!agents) return { live: "unknown" as const };
  if (!lease.pane_id || !lease.terminal_id) return { live: "missing" as const };
  const agent = agents.find((candidate) => candidate.paneId === lease.pane_id);
  if (!agent) return { live: "missing" as const };
  if (!sameIdentity(agent, leaseIdentity(lease))) return { live: "identity_mismatch" as const };
  return { live: "matched" as const, live_status: agent.status, live_seq: agent.stateChangeSeq };
};

export const controllerInventory = async (deps: HerdrDeps) => {
  const controllerId = controllerIdFrom(deps.env);
  const { store } = deps;
  const lease = await store.read((tx) => tx.herdr.controllerLease(controllerId));
  const binding = readBinding(deps.dirs, controllerId);
  const agents = await deps.herdr.listAgents().catch(() => undefined);
  const now = deps.now();
  const leases = listLeases(deps.dirs).filter((record) => record.controller_id === controllerId);
  return {
    controller_id: controllerId,
    controller: lease
      ? {
          state: lease.state,
          lease_ref: leaseRefOf(lease),
          generation: lease.generation,
          expires_at: iso(lease.expiresAt),
          expired: lease.state === "active" && lease.expiresAt <= now,
          held_on_this_host: lease.hostId === deps.local.hostId,
          bound_here: binding?.generation === lease.generation,
          ...(binding ? { pane_id: binding.pane_id, agent_name: binding.agent_name, agent_kind: binding.agent_kind } : {}),
        }
      : null,
    herdr_reachable: agents !== undefined,
    leases: leases
      .filter((record) => isHeld(record.state))
      .map((record) => ({
        ...leaseView(record),
        ...liveOf(record, agents),
        outstanding_receipts: outstandingFor(deps.dirs, record.lease_id).map(tokenOf),
      })),
    ended_leases: leases.filter((record) => !isHeld(record.state)).length,
  };
};

export const receiptList = (deps: HerdrDeps) => {
  const controllerId = controllerIdFrom(deps.env);
  return {
    controller_id: controllerId,
    receipts: listReceipts(deps.dirs)
      .filter((receipt) => receipt.controller_id === controllerId)
      .map((receipt) => ({
        receipt: tokenOf(receipt),
        target: receipt.target,
        lease_id: receipt.target_lease_id,
        state: receipt.state,
        pane_id: receipt.identity.pane_id,
        agent_kind: receipt.identity.agent_kind,
        cwd: receipt.identity.cwd,
        before_seq: receipt.before_seq,
        after_seq: receipt.after_seq,
        settled_seq: receipt.settled_seq,
        settled_status: receipt.settled_status,
        failure: receipt.failure,
        created_at: iso(receipt.created_at),
        updated_at: iso(receipt.updated_at),
      })),
  };
};
