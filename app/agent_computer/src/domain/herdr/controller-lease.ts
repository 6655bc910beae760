// Controller leases: acquire, resume, renew, release. The lease row in the store makes a controller id
// exclusive across hosts and holds only the fence's SHA-256; the raw lease id + fence token go to this host's
// 0600 credential file, and the pane/agent/process binding to its binding file.
import { randomBytes, randomUUID } from "node:crypto";
import { AppError } from "../../errors.ts";
import {
  type ControllerBinding,
  fenceHashOf,
  readBinding,
  removeControllerFiles,
  writeControllerFiles,
} from "../../local/controller-files.ts";
import { UniqueViolation } from "../../store/port.ts";
import type { ControllerLeaseRecord } from "../../store/port-herdr.ts";
import { iso } from "../deps.ts";
import { loadAuthority } from "./controller-authority.ts";
import { callerContext, observeCaller, resolveControllerProcess } from "./controller-caller.ts";
import { type HerdrDeps, reserve } from "./deps.ts";
import { sameDirectory } from "./directories.ts";

export const DEFAULT_CONTROLLER_TTL_SECONDS = 900;

export interface AuthorityInput {
  authorityRef: string;
  authoritySha256: string;
  ttlSeconds: number;
}

export interface ControllerView {
  controller_id: string;
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

const view = (lease: ControllerLeaseRecord, binding: ControllerBinding, credentialFile?: string): ControllerView => ({
  controller_id: lease.controllerId,
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

/** Takes a new lease (new lease id, fence and generation) and binds it to the calling pane, agent and process. */
const bindNewLease = async (deps: HerdrDeps, input: AuthorityInput, mode: "acquire" | "resume"): Promise<ControllerView> => {
  const ctx = callerContext(deps.env);
  const caller = await observeCaller(deps, ctx.paneId);
  const process = resolveControllerProcess(deps.env);
  return reserve(deps, ["controller"], async () => {
    const previous = readBinding(deps.dirs, ctx.controllerId);
    if (mode === "resume") {
      const same =
        previous &&
        previous.pane_id === caller.paneId &&
        previous.terminal_id === caller.terminalId &&
        previous.agent_name === caller.name &&
        previous.agent_kind === caller.kind &&
        sameDirectory(previous.cwd, caller.cwd);
      if (!same) {
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
    const credential = { lease_id: randomUUID(), fence_token: randomBytes(32).toString("base64url") };
    const { store } = deps;
    const lease = await store.write(async (tx) => {
      const existing = await tx.herdr.controllerLease(ctx.controllerId, true);
      if (mode === "acquire" && existing?.state === "active" && existing.expiresAt > now) {
        throw new AppError("CONTROLLER_HELD", `controller ${ctx.controllerId} is held until ${iso(existing.expiresAt)}`, {
          hint: "the holding agent renews or releases it; the same agent after a restart uses controller resume",
        });
      }
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
    const binding: ControllerBinding = {
      version: 1,
      controller_id: ctx.controllerId,
      generation: lease.generation,
      host_id: deps.local.hostId,
      pane_id: caller.paneId,
      terminal_id: caller.terminalId,
      workspace_id: caller.workspaceId,
      agent_name: caller.name ?? "",
      agent_kind: caller.kind ?? "",
      cwd: caller.cwd ?? "",
      process,
      bound_at: now,
    };
    const file = writeControllerFiles(deps.dirs, binding, {
      version: 1,
      controller_id: ctx.controllerId,
      generation: lease.generation,
      ...credential,
    });
    return view(lease, binding, file);
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
