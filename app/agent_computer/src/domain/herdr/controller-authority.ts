// Controller authority for every mutating command: the caller must be the bound pane, agent and (Linux) process
// before the credential file is even read, and the fence is then checked against the store, again immediately
// before each Herdr request that changes something (verify()).

import { timingSafeEqual } from "node:crypto";
import { ancestry } from "../../adapters/process-ancestry.ts";
import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import {
  type ControllerBinding,
  type ControllerCredential,
  fenceHashOf,
  readBinding,
  readCredential,
} from "../../local/controller-files.ts";
import type { ControllerLeaseRecord } from "../../store/port-herdr.ts";
import { iso } from "../deps.ts";
import { callerContext, descendsFrom, observeCaller } from "./controller-caller.ts";
import { sameDirectory } from "./directories.ts";
import type { HerdrDeps } from "./herdr-deps.ts";

export interface ControllerAuthority {
  controllerId: string;
  binding: ControllerBinding;
  /** The fence check against the store; throws CONTROLLER_FENCED / CONTROLLER_EXPIRED. */
  verify(): Promise<ControllerLeaseRecord>;
}

const notController = (message: string, hint: string): AppError => new AppError("CONTROLLER_AUTH_FAILED", message, { hint });

const equalSecret = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

const verifyInStore = async (deps: HerdrDeps, credential: ControllerCredential): Promise<ControllerLeaseRecord> => {
  const { store } = deps;
  const lease = await store.read((tx) => tx.herdr.controllerLease(credential.controller_id));
  const matches =
    lease !== undefined &&
    equalSecret(lease.leaseId, credential.lease_id) &&
    equalSecret(lease.fenceHash, fenceHashOf(credential.fence_token));
  if (!lease || !matches || lease.state !== "active") {
    throw new AppError(
      "CONTROLLER_FENCED",
      `the controller lease of ${credential.controller_id} held here is no longer current`,
      {
        hint: "it was released or replaced by a newer acquire/resume; nothing was changed",
      },
    );
  }
  if (lease.expiresAt <= deps.now()) {
    throw new AppError("CONTROLLER_EXPIRED", `the controller lease expired at ${iso(lease.expiresAt)}`, {
      hint: commandLine(
        "herdr-lease-cli",
        "controller",
        "resume",
        "--authority-ref",
        lease.authorityRef,
        "--authority-sha256",
        lease.authoritySha256,
      ),
    });
  }
  return lease;
};

/** A pane whose lease was taken over is fenced out (not merely "not the controller"), so it stops for good. */
export const supersededIn = (binding: ControllerBinding, paneId: string, terminalId?: string): AppError | undefined => {
  const lost = binding.superseded?.findLast(
    (holder) => holder.pane_id === paneId && (terminalId === undefined || holder.terminal_id === terminalId),
  );
  if (!lost) return undefined;
  return new AppError(
    "CONTROLLER_FENCED",
    `lease ${lost.lease_ref} held from this pane was taken over; controller ${binding.controller_id} is now bound to ` +
      `${binding.agent_name} in pane ${binding.pane_id}`,
    { hint: "nothing was changed; stop coordinating, or take the lease over again once that holder is gone" },
  );
};

/** deadline bounds the read of the caller's pane across a Herdr restart (observeCaller's own bound by default). */
export const loadAuthority = async (deps: HerdrDeps, deadline?: number): Promise<ControllerAuthority> => {
  const ctx = callerContext(deps.env);
  const binding = readBinding(deps.dirs, ctx.controllerId);
  if (!binding) {
    throw notController(
      `no lease of controller ${ctx.controllerId} is bound on this host`,
      "herdr-lease-cli controller acquire --help says how to take one",
    );
  }
  if (binding.pane_id !== ctx.paneId) {
    const fenced = supersededIn(binding, ctx.paneId);
    if (fenced) throw fenced;
    throw notController("this pane is not the controller's pane", "run from the coordinator's own pane");
  }
  const caller = await observeCaller(deps, ctx.paneId, deadline, binding.terminal_id);
  // Not the terminal id: a Herdr handoff gives the pane a new one while the same agent process lives on.
  const sameAgent =
    caller.name === binding.agent_name && caller.kind === binding.agent_kind && sameDirectory(caller.cwd, binding.cwd);
  if (!sameAgent)
    throw notController("the agent in this pane is not the one the lease was bound to", "controller resume rebinds it");
  if (binding.process ? !descendsFrom(binding.process) : ancestry().length > 0) {
    throw notController(
      "this process does not descend from the controller process bound at acquire/resume",
      "controller resume binds the current agent process (see AGENT_CONTROL_CONTROLLER_PID)",
    );
  }
  const credential = readCredential(deps.dirs, ctx.controllerId);
  if (!credential) throw notController("the controller credential file is missing on this host", "controller resume");
  const verify = () => verifyInStore(deps, credential);
  await verify();
  return { controllerId: ctx.controllerId, binding, verify };
};
