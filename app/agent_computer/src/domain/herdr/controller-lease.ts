// Controller leases: acquire, resume, renew, release. The lease row in the store makes a controller id
// exclusive across hosts and holds only the fence's SHA-256; the raw lease id + fence token go to this host's
// 0600 credential file, and the pane/agent/process binding to its binding file.
import { randomBytes, randomUUID } from "node:crypto";
import type { HerdrAgent } from "../../adapters/herdr/client.ts";
import type { ProcessIdentity } from "../../adapters/process-ancestry.ts";
import { AppError } from "../../errors.ts";
import {
  type ControllerBinding,
  fenceHashOf,
  readBinding,
  removeControllerFiles,
  type SupersededHolder,
  writeControllerFiles,
} from "../../local/controller-files.ts";
import { UniqueViolation } from "../../store/port.ts";
import type { ControllerLeaseRecord } from "../../store/port-herdr.ts";
import { iso } from "../deps.ts";
import { loadAuthority, supersededIn } from "./controller-authority.ts";
import { callerContext, observeCaller, resolveControllerProcess } from "./controller-caller.ts";
import { sameDirectory } from "./directories.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import { herdrServerOf } from "./herdr-server.ts";
import { leaseRefOf } from "./lease-ref.ts";

export const DEFAULT_CONTROLLER_TTL_SECONDS = 900;

export interface AuthorityInput {
  authorityRef: string;
  authoritySha256: string;
  ttlSeconds: number;
}

export interface ControllerView {
  controller_id: string;
  /** The lease's public name (controller id + generation); takeover names its predecessor by it. */
  lease_ref: string;
  generation: number;
  state: "active" | "released";
  expires_at: string;
  pane_id: string;
  agent_name: string;
  agent_kind: string;
  cwd: string;
  process_bound: boolean;
  credential_file?: string;
}

export const view = (lease: ControllerLeaseRecord, binding: ControllerBinding, credentialFile?: string): ControllerView => ({
  controller_id: lease.controllerId,
  lease_ref: leaseRefOf(lease),
  generation: lease.generation,
  state: lease.state,
  expires_at: iso(lease.expiresAt),
  pane_id: binding.pane_id,
  agent_name: binding.agent_name,
  agent_kind: binding.agent_kind,
  cwd: binding.cwd,
  process_bound: binding.process !== null,
  ...(credentialFile ? { credential_file: credentialFile } : {}),
});

/** Why an active lease cannot simply be acquired: it has a holder, or had one that must be taken over. */
export const heldError = (existing: ControllerLeaseRecord, now: number): AppError =>
  existing.expiresAt > now
    ? new AppError(
        "CONTROLLER_HELD",
        `controller ${existing.controllerId} is held by lease ${leaseRefOf(existing)} until ${iso(existing.expiresAt)}`,
        {
          hint:
            "the holding agent renews or releases it; the same agent after a restart uses controller resume; if its pane " +
            `or process is gone: herdr-lease-cli controller takeover --expected-lease ${leaseRefOf(existing)}`,
        },
      )
    : new AppError(
        "CONTROLLER_HELD",
        `controller ${existing.controllerId} lease ${leaseRefOf(existing)} expired at ${iso(existing.expiresAt)} but was never released`,
        {
          hint: `its own agent resumes it; another takes it over: herdr-lease-cli controller takeover --expected-lease ${leaseRefOf(existing)}`,
        },
      );

export const newCredential = () => ({ lease_id: randomUUID(), fence_token: randomBytes(32).toString("base64url") });

const credentialOf = (lease: ControllerLeaseRecord, credential: { lease_id: string; fence_token: string }) => ({
  version: 1 as const,
  controller_id: lease.controllerId,
  generation: lease.generation,
  ...credential,
});

/** At most this many panes that lost the lease by takeover are remembered, to tell them they were fenced. */
const SUPERSEDED_KEPT = 16;

export const bindingOf = (
  deps: HerdrDeps,
  lease: ControllerLeaseRecord,
  caller: HerdrAgent,
  process: ProcessIdentity | null,
  superseded: SupersededHolder[],
): ControllerBinding => ({
  version: 1,
  controller_id: lease.controllerId,
  generation: lease.generation,
  host_id: deps.local.hostId,
  pane_id: caller.paneId,
  terminal_id: caller.terminalId,
  workspace_id: caller.workspaceId,
  agent_name: caller.name ?? "",
  agent_kind: caller.kind ?? "",
  cwd: caller.cwd ?? "",
  herdr_server: herdrServerOf(deps.env),
  process,
  bound_at: deps.now(),
  ...(superseded.length > 0 ? { superseded: superseded.slice(-SUPERSEDED_KEPT) } : {}),
});

/** Writes this host's binding and 0600 credential of a new lease; returns the credential file's path. */
export const bindHere = (
  deps: HerdrDeps,
  binding: ControllerBinding,
  lease: ControllerLeaseRecord,
  credential: { lease_id: string; fence_token: string },
): string => writeControllerFiles(deps.dirs, binding, credentialOf(lease, credential));

/** Takes a new lease (new lease id, fence and generation) and binds it to the calling pane, agent and process. */
const bindNewLease = async (deps: HerdrDeps, input: AuthorityInput, mode: "acquire" | "resume"): Promise<ControllerView> => {
  const ctx = callerContext(deps.env);
  const caller = await observeCaller(deps, ctx.paneId, undefined, readBinding(deps.dirs, ctx.controllerId)?.terminal_id);
  const process = resolveControllerProcess(deps.env);
  return reserve(deps, ["controller"], async () => {
    const previous = readBinding(deps.dirs, ctx.controllerId);
    if (mode === "resume") {
      const same =
        previous &&
        previous.pane_id === caller.paneId &&
        previous.agent_name === caller.name &&
        previous.agent_kind === caller.kind &&
        sameDirectory(previous.cwd, caller.cwd);
      if (!same) {
        const fenced = previous && supersededIn(previous, caller.paneId, caller.terminalId);
        if (fenced) throw fenced;
        throw new AppError(
          "CONTROLLER_AUTH_FAILED",
          "resume needs the same pane, agent name, kind and cwd as the lease being resumed",
          {
            hint: previous
              ? "only the agent that acquired the lease can resume it"
              : "no lease of this controller was bound on this host; acquire",
          },
        );
      }
    }
    const now = deps.now();
    const credential = newCredential();
    const { store } = deps;
    const lease = await store.write(async (tx) => {
      const existing = await tx.herdr.controllerLease(ctx.controllerId, true);
      if (mode === "acquire" && existing?.state === "active") throw heldError(existing, now);
      if (mode === "resume" && (existing?.state !== "active" || existing.generation !== previous?.generation)) {
        throw new AppError("CONTROLLER_FENCED", "the lease to resume was released or replaced by a newer acquire", {
          hint: "acquire a new lease",
        });
      }
      const next: ControllerLeaseRecord = {
        controllerId: ctx.controllerId,
        leaseId: credential.lease_id,
        fenceHash: fenceHashOf(credential.fence_token),
        generation: (existing?.generation ?? 0) + 1,
        hostId: deps.local.hostId,
        authorityRef: input.authorityRef,
        authoritySha256: input.authoritySha256,
        state: "active",
        acquiredAt: mode === "acquire" || !existing ? now : existing.acquiredAt,
        renewedAt: now,
        expiresAt: now + input.ttlSeconds * 1000,
        releasedAt: null,
        checkpointRef: null,
        checkpointSha256: null,
      };
      if (!existing) {
        await tx.herdr.insertControllerLease(next).catch((error: unknown) => {
          throw error instanceof UniqueViolation ? new AppError("CONTROLLER_HELD", "another acquire won the race") : error;
        });
      } else if (!(await tx.herdr.replaceControllerLease(existing.leaseId, next))) {
        throw new AppError("CONTROLLER_HELD", "another acquire or resume won the race");
      }
      return next;
    });
    const binding = bindingOf(deps, lease, caller, process, previous?.superseded ?? []);
    return view(lease, binding, bindHere(deps, binding, lease, credential));
  });
};

export const acquireController = (deps: HerdrDeps, input: AuthorityInput) => bindNewLease(deps, input, "acquire");
export const resumeController = (deps: HerdrDeps, input: AuthorityInput) => bindNewLease(deps, input, "resume");

/** Changes the current lease after the full authority check; the fence is compared again inside the transaction. */
const changeLease = async (
  deps: HerdrDeps,
  change: (lease: ControllerLeaseRecord, now: number) => ControllerLeaseRecord,
): Promise<{ lease: ControllerLeaseRecord; binding: ControllerBinding }> => {
  const authority = await loadAuthority(deps);
  return reserve(deps, ["controller"], async () => {
    const current = await authority.verify();
    const next = change(current, deps.now());
    const { store } = deps;
    const swapped = await store.write((tx) => tx.herdr.replaceControllerLease(current.leaseId, next));
    if (!swapped) throw new AppError("CONTROLLER_FENCED", "the controller lease changed while it was being updated");
    return { lease: next, binding: authority.binding };
  });
};

export const renewController = async (deps: HerdrDeps, ttlSeconds: number): Promise<ControllerView> => {
  const { lease, binding } = await changeLease(deps, (current, now) => ({
    ...current,
    renewedAt: now,
    expiresAt: now + ttlSeconds * 1000,
  }));
  return view(lease, binding);
};

export const releaseController = async (
  deps: HerdrDeps,
  checkpoint: { checkpointRef: string; checkpointSha256: string },
): Promise<ControllerView> => {
  const { lease, binding } = await changeLease(deps, (current, now) => ({
    ...current,
    state: "released",
    releasedAt: now,
    expiresAt: now,
    checkpointRef: checkpoint.checkpointRef,
    checkpointSha256: checkpoint.checkpointSha256,
  }));
  removeControllerFiles(deps.dirs, lease.controllerId);
  return view(lease, binding);
};
