// Controller takeover: a new coordinator takes the controller lease of a holder that is gone, only as a
// compare-and-swap on the predecessor it names (--expected-lease). Gone means: the lease was released or expired,
// or (held from this host) Herdr answered pane_not_found for the holder's exact pane, or its bound process is
// observed dead. A Herdr read that fails is no evidence. The swap re-reads the row under the transaction's lock:
// if anything else took, resumed or renewed the lease meanwhile, the caller loses and is told the current lease.
import { currentBootId } from "../../adapters/process-ancestry.ts";
import { AppError } from "../../errors.ts";
import { type ControllerBinding, fenceHashOf, readBinding, type SupersededHolder } from "../../local/controller-files.ts";
import type { ControllerLeaseRecord } from "../../store/port-herdr.ts";
import { iso } from "../deps.ts";
import { callerContext, observeCaller, resolveControllerProcess } from "./controller-caller.ts";
import { type AuthorityInput, bindHere, bindingOf, type ControllerView, newCredential, view } from "./controller-lease.ts";
import { type HerdrDeps, reserve } from "./deps.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { LEASE_REF_PATTERN, leaseRefOf } from "./lease-ref.ts";
import { observePane } from "./pane-presence.ts";

export type GoneEvidence = "released" | "expired" | "pane_gone" | "process_gone";

export interface TakeoverView extends ControllerView {
  predecessor: { lease_ref: string; evidence: GoneEvidence; detail: string };
}

const changed = (controllerId: string, expected: string, current: ControllerLeaseRecord | undefined): AppError =>
  new AppError(
    "CONTROLLER_LEASE_CHANGED",
    current
      ? `the lease of controller ${controllerId} is now ${leaseRefOf(current)} (${current.state}, until ${iso(current.expiresAt)}), not ${expected}`
      : `controller ${controllerId} has no lease (expected ${expected})`,
    {
      hint: current
        ? "re-read it (herdr-agent-control status); take that one over only if its holder is gone too"
        : "acquire it: herdr-lease-cli controller acquire --help",
    },
  );

/** Whether the holder's bound process is observed dead: another boot, no such pid, or the pid reused. */
const processGone = (deps: HerdrDeps, binding: ControllerBinding): string | undefined => {
  const recorded = binding.process;
  if (!recorded) return undefined;
  const boot = currentBootId();
  if (boot && boot !== recorded.bootId) return `its process ${recorded.pid} belonged to an earlier boot`;
  const seen = deps.local.probe(recorded.pid);
  if (!seen.exists) return `its process ${recorded.pid} is gone`;
  if (seen.startTime !== null && seen.startTime !== recorded.startTicks) return `pid ${recorded.pid} is another process now`;
  return undefined;
};

/** The evidence that the lease's holder is gone, or undefined when it may still be there. */
const evidenceOf = async (
  deps: HerdrDeps,
  lease: ControllerLeaseRecord,
  binding: ControllerBinding | undefined,
  now: number,
): Promise<{ evidence: GoneEvidence; detail: string } | undefined> => {
  if (lease.state === "released") return { evidence: "released", detail: `released at ${iso(lease.releasedAt ?? 0)}` };
  if (lease.expiresAt <= now) return { evidence: "expired", detail: `expired at ${iso(lease.expiresAt)}` };
  // Pane and process are facts of the holding host only; a lease of another host is gone only by expiry.
  if (lease.hostId !== deps.local.hostId || binding?.generation !== lease.generation) return undefined;
  const pane = await observePane(deps.herdr, binding.pane_id);
  if (pane.kind === "unknown") throw herdrFailure(pane.error);
  if (pane.kind === "gone") {
    return { evidence: "pane_gone", detail: `Herdr answered pane_not_found for its pane ${binding.pane_id}` };
  }
  const process = processGone(deps, binding);
  return process ? { evidence: "process_gone", detail: process } : undefined;
};

/** Why the holder may still be there: it was observed, or there is nothing here to observe it by. */
const notGone = (lease: ControllerLeaseRecord, binding: ControllerBinding | undefined, hostId: string): AppError => {
  const held = `lease ${leaseRefOf(lease)} is held until ${iso(lease.expiresAt)}`;
  const observed = lease.hostId === hostId && binding?.generation === lease.generation;
  if (observed && binding) {
    return new AppError(
      "CONTROLLER_HELD",
      `${held} and its holder ${binding.agent_name} in pane ${binding.pane_id} is still there`,
      {
        hint: "a holder is gone once its lease expires, its pane is closed or its process ends; its own agent resumes it",
      },
    );
  }
  return new AppError(
    "CONTROLLER_HELD",
    `${held} ${lease.hostId === hostId ? "and this host kept no record of its pane or process" : "from another host"}`,
    { hint: "with no pane or process to observe from here, it is taken over only once it expires" },
  );
};

export const takeoverController = async (
  deps: HerdrDeps,
  input: AuthorityInput & { expectedLease: string },
): Promise<TakeoverView> => {
  const ctx = callerContext(deps.env);
  const named = LEASE_REF_PATTERN.exec(input.expectedLease)?.[1];
  if (named !== ctx.controllerId) {
    throw new AppError(
      "INVALID_INPUT",
      `--expected-lease: names controller ${named ?? "?"}, but AGENT_CONTROL_CONTROLLER_ID is ${ctx.controllerId} (got ${input.expectedLease})`,
    );
  }
  const caller = await observeCaller(deps, ctx.paneId);
  const process = resolveControllerProcess(deps.env);
  const { store } = deps;
  return reserve(deps, ["controller"], async () => {
    const seen = await store.read((tx) => tx.herdr.controllerLease(ctx.controllerId));
    if (!seen || leaseRefOf(seen) !== input.expectedLease) throw changed(ctx.controllerId, input.expectedLease, seen);
    const previous = readBinding(deps.dirs, ctx.controllerId);
    const gone = await evidenceOf(deps, seen, previous, deps.now());
    if (!gone) throw notGone(seen, previous, deps.local.hostId);
    const credential = newCredential();
    const lease = await store.write(async (tx) => {
      const now = deps.now();
      const current = await tx.herdr.controllerLease(ctx.controllerId, true);
      // The swap's condition: the same lease, still in the state the evidence was about (a renew keeps the lease id).
      const same =
        current !== undefined &&
        current.leaseId === seen.leaseId &&
        current.state === seen.state &&
        current.expiresAt === seen.expiresAt;
      if (!current || !same) throw changed(ctx.controllerId, input.expectedLease, current);
      const next: ControllerLeaseRecord = {
        controllerId: ctx.controllerId,
        leaseId: credential.lease_id,
        fenceHash: fenceHashOf(credential.fence_token),
        generation: current.generation + 1,
        hostId: deps.local.hostId,
        authorityRef: input.authorityRef,
        authoritySha256: input.authoritySha256,
        state: "active",
        acquiredAt: now,
        renewedAt: now,
        expiresAt: now + input.ttlSeconds * 1000,
        releasedAt: null,
        checkpointRef: null,
        checkpointSha256: null,
      };
      if (!(await tx.herdr.replaceControllerLease(current.leaseId, next)))
        throw changed(ctx.controllerId, input.expectedLease, current);
      return next;
    });
    const lost: SupersededHolder[] =
      previous?.generation === seen.generation && previous.pane_id !== caller.paneId
        ? [{ lease_ref: leaseRefOf(seen), pane_id: previous.pane_id, terminal_id: previous.terminal_id }]
        : [];
    const binding = bindingOf(deps, lease, caller, process, [...(previous?.superseded ?? []), ...lost]);
    const file = bindHere(deps, binding, lease, credential);
    return { ...view(lease, binding, file), predecessor: { lease_ref: leaseRefOf(seen), ...gone } };
  });
};
