// Controller takeover: a new coordinator takes the controller lease of a holder that is gone, only as a
// compare-and-swap on the predecessor it names (--expected-lease). Gone means: the lease was released, or it
// expired AND (held from this host) its bound process is observed dead or, asked of the Herdr server it was bound
// under, the holder's pane is missing, runs no such agent, or the agent is done or blocked. A Herdr read that
// fails is no evidence, and a holder bound under another Herdr server cannot be observed: both refuse. The swap re-reads the row under the transaction's lock:
// if anything else took, resumed or renewed the lease meanwhile, the caller loses and is told the current lease.
import { currentBootId } from "../../adapters/process-ancestry.ts";
import { AppError } from "../../errors.ts";
import { type ControllerBinding, fenceHashOf, readBinding, type SupersededHolder } from "../../local/controller-files.ts";
import type { ControllerLeaseRecord } from "../../store/port-herdr.ts";
import { iso } from "../deps.ts";
import { callerContext, observeCaller, resolveControllerProcess } from "./controller-caller.ts";
import { type AuthorityInput, bindHere, bindingOf, type ControllerView, newCredential, view } from "./controller-lease.ts";
import { sameDirectory } from "./directories.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import { observeAcrossEpochOrFail, RESTORE_GRACE_MS } from "./herdr-epoch.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { otherServer } from "./herdr-server.ts";
import { LEASE_REF_PATTERN, leaseRefOf } from "./lease-ref.ts";
import { observePane } from "./pane-presence.ts";

export type GoneEvidence = "released" | "expired" | "pane_gone" | "process_gone" | "agent_gone" | "done" | "blocked";

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

type Verdict = { gone: { evidence: GoneEvidence; detail: string } } | { held: AppError };

const held = (lease: ControllerLeaseRecord, why: string, hint: string): Verdict => ({
  held: new AppError("CONTROLLER_HELD", `lease ${leaseRefOf(lease)} ${why}`, { hint }),
});
const TAKEOVER_RULE =
  "takeover needs the lease expired AND its holder's pane gone, its agent done or blocked, or its process dead";

/**
 * Whether the lease's holder is gone. Released is gone. Otherwise the lease must have expired AND, when it was held
 * from this host, its holder must be observed gone: its process dead, or (asked of the Herdr server it was bound
 * under) its pane missing, no such agent in it, or the agent done or blocked. An expired lease of another host has
 * nothing here to observe it by and goes by expiry alone.
 */
const verdictOf = async (
  deps: HerdrDeps,
  lease: ControllerLeaseRecord,
  binding: ControllerBinding | undefined,
  now: number,
): Promise<Verdict> => {
  if (lease.state === "released") return { gone: { evidence: "released", detail: `released at ${iso(lease.releasedAt ?? 0)}` } };
  const until = iso(lease.expiresAt);
  if (lease.expiresAt > now) {
    return held(lease, `is held until ${until}`, `${TAKEOVER_RULE}; its own agent resumes it`);
  }
  const expired = `expired at ${until}`;
  if (lease.hostId !== deps.local.hostId || binding?.generation !== lease.generation) {
    const from = lease.hostId === deps.local.hostId ? "this host kept no record of its pane" : "it was held from another host";
    return { gone: { evidence: "expired", detail: `${expired}; ${from}` } };
  }
  const process = processGone(deps, binding);
  if (process) return { gone: { evidence: "process_gone", detail: `${expired} and ${process}` } };
  const elsewhere = otherServer(binding.herdr_server, deps.env);
  if (elsewhere)
    return held(lease, `${expired}, but its holder cannot be observed: ${elsewhere}`, "take it over from that Herdr server");
  const pane = await observePane(deps.herdr, binding.pane_id);
  if (pane.kind === "unknown") throw herdrFailure(pane.error);
  if (pane.kind === "gone") {
    return {
      gone: { evidence: "pane_gone", detail: `${expired} and Herdr answered pane_not_found for its pane ${binding.pane_id}` },
    };
  }
  const agent = await observeAcrossEpochOrFail(deps.herdr, binding.pane_id, binding.terminal_id, Date.now() + RESTORE_GRACE_MS);
  const same =
    agent && agent.name === binding.agent_name && agent.kind === binding.agent_kind && sameDirectory(agent.cwd, binding.cwd);
  if (!agent || !same) {
    return {
      gone: { evidence: "agent_gone", detail: `${expired} and ${binding.agent_name} no longer runs in pane ${binding.pane_id}` },
    };
  }
  if (agent.status === "done" || agent.status === "blocked") {
    return { gone: { evidence: agent.status, detail: `${expired} and its holder ${binding.agent_name} is ${agent.status}` } };
  }
  return held(
    lease,
    `${expired}, but its holder ${binding.agent_name} in pane ${binding.pane_id} is still ${agent.status}`,
    `${TAKEOVER_RULE}; its own agent resumes it`,
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
    const verdict = await verdictOf(deps, seen, previous, deps.now());
    if ("held" in verdict) throw verdict.held;
    const { gone } = verdict;
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
