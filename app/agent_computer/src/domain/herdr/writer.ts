// Writer leases: admission (writer-admission.ts), an exclusive claim on branch, worktree and scopes in the
// shared store, then the agent in a dedicated tab. Release needs a content-free checkpoint (a reference and its
// SHA-256) and the Git state the coordinator just observed; it closes only the leased pane and never touches
// Git: branch, worktree and every byte in it stay as they are.

import { repositoryFacts } from "../../adapters/git-paths.ts";
import { AppError } from "../../errors.ts";
import type { WriterClaimState } from "../../store/port-herdr.ts";
import { repositoryKey } from "../reservations/repository-key.ts";
import { releaseWriterScopes } from "../reservations/writer-lane-holder.ts";
import { reserveWriterScopes } from "../reservations/writer-lanes.ts";
import { type CloseResult, closeLeasedPane } from "./close-leased.ts";
import { loadAuthority } from "./controller-authority.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { type LeaseRecord, ownedLease, readLease, saveLease } from "./leases.ts";
import type { LaunchInput } from "./reviewer.ts";
import { provisionLease } from "./reviewer.ts";
import { scopeClash } from "./scopes.ts";
import { startInDedicatedTab } from "./start-agent.ts";
import { readVerification } from "./verify-receipts.ts";
import { checkNoAgentInWorktree, checkWorktreeFacts, type GitExpectations, literalScopes, refuse } from "./writer-admission.ts";

export interface WriterInput extends LaunchInput, GitExpectations {
  ticketRef: string;
  authorityRef: string;
  authoritySha256: string;
  ownedScopes: readonly string[];
  blockedScopes: readonly string[];
}

/** Which claim states may precede each state the local lease moves to. */
const CLAIM_FROM: Partial<Record<WriterClaimState, WriterClaimState[]>> = {
  active: ["provisioning"],
  failed_closed: ["provisioning"],
  orphaned: ["provisioning"],
  releasing: ["active"],
  released: ["releasing"],
  release_failed: ["releasing"],
};

const mirrorClaim = async (
  deps: HerdrDeps,
  lease: LeaseRecord,
  patch: { checkpointRef?: string; checkpointSha256?: string } = {},
) => {
  const to = lease.state as WriterClaimState;
  const from = CLAIM_FROM[to];
  if (!from) return;
  const { store } = deps;
  await store.write(async (tx) => {
    const moved = await tx.herdr.moveWriterClaim(lease.lease_id, from, to, patch, deps.now());
    if (moved && (to === "released" || to === "failed_closed")) await releaseWriterScopes(tx, lease.lease_id, deps.now());
  });
};

const claimScopes = async (deps: HerdrDeps, lease: LeaseRecord, input: WriterInput, repoKey: string): Promise<void> => {
  const writer = lease.writer;
  if (!writer) throw new AppError("INTERNAL", "writer facts missing");
  // The repository as file reservations name it (origin URL), beside the claim's own key (root commits).
  const reservationRepo = repositoryKey(await repositoryFacts(writer.worktree, deps.env), deps.host);
  const { store } = deps;
  await store.write(async (tx) => {
    await tx.herdr.lockWriterRepo(repoKey);
    for (const held of await tx.herdr.heldWriterClaims(repoKey)) {
      const details = { lease_id: held.leaseId, held_state: held.state };
      if (held.branch === writer.branch) {
        throw new AppError("SCOPE_CONFLICT", `branch ${held.branch} is held by writer lease ${held.leaseId}`, {
          details: { conflict: "branch", ...details },
        });
      }
      if (held.hostId === deps.local.hostId && held.worktree === writer.worktree) {
        throw new AppError("SCOPE_CONFLICT", `worktree ${held.worktree} is held by writer lease ${held.leaseId}`, {
          details: { conflict: "worktree", ...details },
        });
      }
      const clash = scopeClash(
        { owned: writer.owned_scopes, blocked: writer.blocked_scopes },
        { owned: held.ownedScopes, blocked: held.blockedScopes },
      );
      if (clash) {
        throw new AppError("SCOPE_CONFLICT", `scope ${clash.scope} overlaps ${clash.held} of writer lease ${held.leaseId}`, {
          details: { conflict: "scope", scope: clash.scope, held_scope: clash.held, ...details },
        });
      }
    }
    const now = deps.now();
    await tx.herdr.insertWriterClaim({
      leaseId: lease.lease_id,
      repoKey,
      controllerId: lease.controller_id,
      hostId: deps.local.hostId,
      worktree: writer.worktree,
      branch: writer.branch,
      ownedScopes: writer.owned_scopes,
      blockedScopes: writer.blocked_scopes,
      ticketRef: input.ticketRef,
      authorityRef: input.authorityRef,
      authoritySha256: input.authoritySha256,
      state: "provisioning",
      checkpointRef: null,
      checkpointSha256: null,
      createdAt: now,
      updatedAt: now,
    });
    await reserveWriterScopes(tx, {
      repoKey: reservationRepo,
      leaseId: lease.lease_id,
      owned: writer.owned_scopes,
      reason: `Herdr writer ${lease.agent_name}, ticket ${input.ticketRef}`,
      id: deps.newId("rsv"),
      now,
    });
  });
};

export const startWriter = async (deps: HerdrDeps, input: WriterInput): Promise<LeaseRecord> => {
  const scopes = literalScopes(input.ownedScopes, input.blockedScopes);
  const authority = await loadAuthority(deps);
  const { repoKey } = await checkWorktreeFacts(deps, input);
  await checkNoAgentInWorktree(deps, input.worktree);
  const lease = await provisionLease(deps, {
    type: "writer",
    controller_id: authority.controllerId,
    state: "provisioning",
    purpose: input.purpose,
    authority_ref: input.authorityRef,
    authority_sha256: input.authoritySha256,
    agent_name: input.name,
    agent_kind: input.kind,
    cwd: input.worktree,
    pane_id: null,
    terminal_id: null,
    workspace_id: null,
    writer: {
      repo_key: repoKey,
      worktree: input.worktree,
      branch: input.branch,
      base_commit: input.baseCommit,
      head: input.expectedHead,
      status_sha256: input.expectedStatusSha256,
      owned_scopes: scopes.owned,
      blocked_scopes: scopes.blocked,
      protected_branches: [...input.protectedBranches],
      ticket_ref: input.ticketRef,
    },
  });
  try {
    await claimScopes(deps, lease, input, repoKey);
  } catch (error) {
    saveLease(
      deps.dirs,
      { ...lease, state: "failed_closed", failure: error instanceof AppError ? error.code : "INTERNAL" },
      deps.now(),
    );
    throw error;
  }
  const plan = {
    kind: input.kind,
    workspaceId: authority.binding.workspace_id,
    args: [],
    startTimeoutMs: input.startTimeoutMs,
    busyWindowMs: input.busyWindowMs,
  };
  return startInDedicatedTab(deps, authority, lease, plan, (ended) => mirrorClaim(deps, ended));
};

export interface ReleaseInput {
  leaseId: string;
  expectedSeq: number;
  expectedHead: string;
  expectedStatusSha256: string;
  checkpointRef: string;
  checkpointSha256: string;
  /** A verification receipt of this lease that passed on exactly expectedHead, cited by the checkpoint. */
  verificationId?: string;
  readLines: number;
}

const citedVerification = (deps: HerdrDeps, lease: LeaseRecord, input: ReleaseInput): string | undefined => {
  if (input.verificationId === undefined) return undefined;
  const receipt = readVerification(deps.dirs, input.verificationId);
  if (!receipt || receipt.lease_id !== lease.lease_id) {
    throw refuse("verification_unknown", `no verification ${input.verificationId} of this lease on this host`);
  }
  if (receipt.status !== "passed") throw refuse("verification_failed", `verification ${receipt.id} did not pass`);
  if (receipt.commit !== input.expectedHead) {
    throw refuse("verification_commit", `verification ${receipt.id} verified ${receipt.commit}, not ${input.expectedHead}`);
  }
  return receipt.id;
};

export const releaseWriter = async (deps: HerdrDeps, input: ReleaseInput): Promise<CloseResult> => {
  const authority = await loadAuthority(deps);
  ownedLease(deps.dirs, input.leaseId, authority.controllerId, "writer");
  const load = () => readLease(deps.dirs, input.leaseId) as LeaseRecord;
  const checkpoint = { checkpointRef: input.checkpointRef, checkpointSha256: input.checkpointSha256 };
  return closeLeasedPane(
    deps,
    authority,
    input.leaseId,
    load,
    input,
    { closing: "releasing", closed: "released", failed: "release_failed" },
    {
      prepare: async (lease) => {
        const writer = lease.writer;
        if (!writer) throw new AppError("INTERNAL", "writer facts missing");
        const git = deps.git(writer.worktree);
        const branch = await git.branch();
        if (branch !== writer.branch)
          throw refuse("branch_mismatch", `the worktree is on ${branch ?? "a detached HEAD"}, not ${writer.branch}`);
        const head = await git.commit("HEAD");
        if (head !== input.expectedHead) throw refuse("head_mismatch", `HEAD is ${head}, not ${input.expectedHead}`);
        const status = await git.statusSha256();
        if (status !== input.expectedStatusSha256)
          throw refuse("status_mismatch", `the status digest is ${status}, not the one given`);
        const verificationId = citedVerification(deps, lease, input);
        saveLease(
          deps.dirs,
          {
            ...lease,
            checkpoint_ref: input.checkpointRef,
            checkpoint_sha256: input.checkpointSha256,
            ...(verificationId ? { verification_id: verificationId } : {}),
          },
          deps.now(),
        );
      },
      transition: (lease) => mirrorClaim(deps, lease, checkpoint),
    },
  );
};
