// ask / ask-many: the receipt protocol. Every target of a batch is validated under one fence check and the
// lifecycle + receipt locks before anything is sent; admission needs the exact leased identity settled (idle or
// done) and records its cursor in a durable `reserved` receipt; only then is the request typed. A receipt turns
// `pending` only when Herdr reports that same identity `working` at a later cursor; anything less stays a
// blocking `reserved` receipt, because the request may or may not have reached the agent.
import { isHerdrError } from "../../adapters/herdr/client.ts";
import { AppError, isAppError } from "../../errors.ts";
import { isReadyForRequest, sameIdentity } from "./agent-identity.ts";
import { collectMany } from "./collect.ts";
import { type ControllerAuthority, loadAuthority } from "./controller-authority.ts";
import type { HandoffMode, HandoffOutput } from "./handoff-results.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import { isHeld, type LeaseRecord, leaseIdentity, listLeases } from "./leases.ts";
import { newReceipt, outstandingFor, type ReceiptRecord, saveReceipt, tokenOf, transitionReceipt } from "./receipts.ts";
import { observeSurviving } from "./settle.ts";

export interface HandoffRequest {
  target: string;
  message: string;
}

/** Herdr's own bound for observing a prompt's first state change is 5 s; this leaves room for a slow Enter. */
const DELIVERY_TIMEOUT_MS = 30_000;
const MIN_DELIVERY_TIMEOUT_MS = 1_000;
const DELIVERY_UNTIL = ["working", "idle", "done", "blocked"] as const;

/** Failures Herdr reports before it types anything: the request certainly did not arrive. */
const NOT_SENT_KINDS = [
  "not_installed",
  "server_unavailable",
  "version_mismatch",
  "not_found",
  "not_ready",
  "blocked",
  "invalid_argument",
  "usage",
];

const targetLease = (leases: readonly LeaseRecord[], controllerId: string, target: string): LeaseRecord => {
  const held = leases.filter(
    (lease) => lease.controller_id === controllerId && lease.agent_name === target && isHeld(lease.state),
  );
  const lease = held[0];
  if (!lease) throw new AppError("TARGET_NOT_LEASED", `${target}: no lease of this controller holds that agent`);
  if (held.length > 1) throw new AppError("CONFLICT", `${target}: more than one held lease names that agent; inspect them`);
  if (lease.type === "adopted") throw new AppError("TARGET_NOT_LEASED", `${target}: an adopted lease is cleanup-only`);
  if (lease.state !== "active") throw new AppError("TARGET_NOT_LEASED", `${target}: its lease is ${lease.state}, not active`);
  return lease;
};

/**
 * Validates every target, then writes one reserved receipt per target; all or nothing. Admission only reads Herdr,
 * so a read cut by a Herdr restart is made again until the call's deadline.
 */
const admit = (
  deps: HerdrDeps,
  authority: ControllerAuthority,
  requests: readonly HandoffRequest[],
  deadline: number,
): Promise<ReceiptRecord[]> =>
  reserve(deps, ["reviewer", "writer", "adopted", "receipts"], async () => {
    await authority.verify();
    const leases = listLeases(deps.dirs);
    const admitted = requests.map((request) => {
      const lease = targetLease(leases, authority.controllerId, request.target);
      const blocking = outstandingFor(deps.dirs, lease.lease_id)[0];
      if (blocking) {
        throw new AppError("RECEIPT_OUTSTANDING", `${request.target}: receipt ${tokenOf(blocking)} is still ${blocking.state}`, {
          hint: blocking.state === "pending" ? "collect it first" : "inspect the agent, then abandon it once it is settled",
        });
      }
      return { request, lease, identity: leaseIdentity(lease) };
    });
    const observed = [];
    for (const entry of admitted) {
      const agent = await observeSurviving(deps.herdr, entry.identity, deadline);
      if (!agent || !sameIdentity(agent, entry.identity)) {
        throw new AppError("IDENTITY_CHANGED", `${entry.request.target}: the leased agent is no longer in its pane`);
      }
      if (!isReadyForRequest(agent.status)) {
        throw new AppError("AGENT_NOT_SETTLED", `${entry.request.target}: the agent is ${agent.status}, not idle or done`, {
          hint: agent.status === "blocked" ? "a blocked agent waits for a human decision" : "wait for its turn to end",
        });
      }
      // The cursor is read under the server now running: the receipt records that server's terminal with it.
      observed.push({
        ...entry,
        identity: { ...entry.identity, terminal_id: agent.terminalId },
        beforeSeq: agent.stateChangeSeq,
      });
    }
    await authority.verify();
    const now = deps.now();
    return observed.map(({ request, lease, identity, beforeSeq }) => {
      const receipt = newReceipt({
        controller_id: authority.controllerId,
        target: request.target,
        target_lease_id: lease.lease_id,
        lease_type: lease.type,
        identity,
        created_at: now,
        before_seq: beforeSeq,
      });
      saveReceipt(deps.dirs, receipt);
      return receipt;
    });
  });

const deliver = async (
  deps: HerdrDeps,
  authority: ControllerAuthority,
  receipt: ReceiptRecord,
  message: string,
  deadline: number,
): Promise<ReceiptRecord> => {
  const notSent = () =>
    transitionReceipt(deps, receipt.receipt_id, ["reserved"], { state: "failed", failure: "delivery_failed" });
  try {
    await authority.verify();
  } catch (error) {
    await notSent();
    throw error;
  }
  const timeoutMs = Math.max(MIN_DELIVERY_TIMEOUT_MS, Math.min(deadline - Date.now(), DELIVERY_TIMEOUT_MS));
  try {
    // Herdr answers only the status it sees now. A turn too short to be seen working ends settled at a later
    // cursor; waiting on for `working` would only sit out the timeout, so any settled status ends the wait too
    // (and leaves the receipt reserved: the request may or may not have been that turn).
    const agent = await deps.herdr.promptAgent(receipt.identity.pane_id, message, { until: DELIVERY_UNTIL, timeoutMs });
    const accepted =
      sameIdentity(agent, receipt.identity) && agent.status === "working" && agent.stateChangeSeq > receipt.before_seq;
    if (!accepted) return receipt;
    return transitionReceipt(deps, receipt.receipt_id, ["reserved"], { state: "pending", after_seq: agent.stateChangeSeq });
  } catch (error) {
    if (isHerdrError(error) && NOT_SENT_KINDS.includes(error.kind)) return notSent();
    // Stalled, timed out, agent gone mid-wait, an odd answer: the text may have landed. It stays reserved.
    return receipt;
  }
};

export const handoff = async (
  deps: HerdrDeps,
  requests: readonly HandoffRequest[],
  mode: HandoffMode,
  timeoutMs: number,
  readLines: number,
): Promise<HandoffOutput> => {
  const targets = requests.map((request) => request.target);
  if (new Set(targets).size !== targets.length) throw new AppError("INVALID_INPUT", "each target may appear once per batch");
  const deadline = Date.now() + timeoutMs;
  const authority = await loadAuthority(deps, deadline);
  const receipts = await admit(deps, authority, requests, deadline);
  const delivered = await Promise.all(
    receipts.map((receipt, index) =>
      deliver(deps, authority, receipt, requests[index]?.message ?? "", deadline).catch(async (error: unknown) => {
        if (!isAppError(error)) throw error;
        return { ...receipt, state: "failed" as const, failure: "delivery_failed" as const, fenced: true };
      }),
    ),
  );
  const output = await collectMany(deps, delivered, mode, { deadline, readLines });
  delivered.forEach((receipt, index) => {
    const result = output.results[index];
    if ("fenced" in receipt && result) result.error = "controller_fenced";
  });
  return output;
};
