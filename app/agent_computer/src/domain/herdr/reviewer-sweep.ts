// Reviewer cleanup sweep: closes this controller's reviewer panes whose review is over (the exact leased agent is
// idle or done and no receipt to it is reserved or pending: its result was collected, or its request abandoned).
// Working, blocked, vanished or replaced reviewers are preserved as observed; each close is the full lease close
// (cursor seen now, capture, identity and cursor re-read, fence) of close-leased.ts. A dry run closes nothing and
// lists exactly the panes a sweep would close now.
import { AppError } from "../../errors.ts";
import { isReadyForRequest, observeAgent, sameIdentity } from "./agent-identity.ts";
import { closeLeasedPane } from "./close-leased.ts";
import { loadAuthority } from "./controller-authority.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { otherServer } from "./herdr-server.ts";
import { type LeaseRecord, leaseIdentity, listLeases, readLease } from "./leases.ts";
import { outstandingFor, tokenOf } from "./receipts.ts";

export type SweepOutcome = "closed" | "would_close" | "preserved";

export interface SweepEntry {
  lease_id: string;
  agent_name: string;
  pane_id: string | null;
  outcome: SweepOutcome;
  reason: string;
  observed_status?: string;
  observed_seq?: number;
  capture_sha256?: string;
}

export interface SweepResult {
  controller_id: string;
  dry_run: boolean;
  reviewers: SweepEntry[];
}

const entry = (lease: LeaseRecord, outcome: SweepOutcome, reason: string, extra: Partial<SweepEntry> = {}): SweepEntry => ({
  lease_id: lease.lease_id,
  agent_name: lease.agent_name,
  pane_id: lease.pane_id,
  outcome,
  reason,
  ...extra,
});
const preserved = (lease: LeaseRecord, reason: string, extra: Partial<SweepEntry> = {}) =>
  entry(lease, "preserved", reason, extra);
const OVER = "review over: idle or done, nothing outstanding";

const messageOf = (error: unknown): string => {
  const failure = herdrFailure(error);
  return failure instanceof AppError ? `${failure.code}: ${failure.message}` : String(failure);
};

const sweepOne = async (
  deps: HerdrDeps,
  authority: Awaited<ReturnType<typeof loadAuthority>>,
  lease: LeaseRecord,
  input: { dryRun: boolean; readLines: number },
): Promise<SweepEntry> => {
  const blocking = outstandingFor(deps.dirs, lease.lease_id)[0];
  if (blocking) return preserved(lease, `receipt ${tokenOf(blocking)} is still ${blocking.state}`);
  if (!lease.pane_id || !lease.terminal_id) return preserved(lease, "it never reached an agent");
  const elsewhere = otherServer(lease.herdr_server, deps.env);
  if (elsewhere) return preserved(lease, elsewhere);
  let agent: Awaited<ReturnType<typeof observeAgent>>;
  try {
    agent = await observeAgent(deps.herdr, lease.pane_id, undefined, lease.terminal_id);
  } catch (error) {
    return preserved(lease, `Herdr could not be read (${messageOf(error)})`);
  }
  if (!agent) return preserved(lease, "its pane or agent is gone (herdr-lease-cli reconcile --apply ends such leases as lost)");
  if (!sameIdentity(agent, leaseIdentity(lease))) return preserved(lease, "another agent now runs in its pane");
  const observed = { observed_status: agent.status, observed_seq: agent.stateChangeSeq };
  if (!isReadyForRequest(agent.status)) return preserved(lease, `it is ${agent.status}, not idle or done`, observed);
  if (input.dryRun) return entry(lease, "would_close", OVER, observed);
  try {
    const closed = await closeLeasedPane(
      deps,
      authority,
      lease.lease_id,
      () => readLease(deps.dirs, lease.lease_id) as LeaseRecord,
      { expectedSeq: agent.stateChangeSeq, readLines: input.readLines },
      { closing: "closing", closed: "closed", failed: "close_failed" },
    );
    return entry(lease, "closed", OVER, { ...observed, capture_sha256: closed.capture_sha256 });
  } catch (error) {
    // The fence is the sweep's authority: losing it stops the whole sweep, never just one pane.
    if (error instanceof AppError && error.code.startsWith("CONTROLLER_")) throw error;
    return preserved(lease, `not closed: ${messageOf(error)}`, observed);
  }
};

export const sweepReviewers = async (deps: HerdrDeps, input: { dryRun: boolean; readLines: number }): Promise<SweepResult> => {
  const authority = await loadAuthority(deps);
  const reviewers = listLeases(deps.dirs).filter(
    (lease) => lease.controller_id === authority.controllerId && lease.type === "reviewer" && lease.state === "active",
  );
  const entries: SweepEntry[] = [];
  for (const lease of reviewers) entries.push(await sweepOne(deps, authority, lease, input));
  return { controller_id: authority.controllerId, dry_run: input.dryRun, reviewers: entries };
};
