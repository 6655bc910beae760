// Collecting results of delivered receipts. Collect never prompts: it waits strictly after the accepted working
// cursor, captures the output, and re-reads identity and cursor; a completed receipt is replayed only while its
// exact settled identity and cursor are still current, so output of a later task is refused, never mislabelled.
import type { HerdrAgent } from "../../adapters/herdr/client.ts";
import { AppError } from "../../errors.ts";
import { isSettled, sameIdentity } from "./agent-identity.ts";
import { loadAuthority } from "./controller-authority.ts";
import { type HandoffMode, type HandoffOutput, type HandoffResult, handoffOutput, resultOf } from "./handoff-results.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { isNewEpoch } from "./herdr-epoch.ts";
import { findReceipt, type ReceiptRecord, transitionReceipt } from "./receipts.ts";
import { abortOthers, captureSettled, observeSurviving, waitForSettled } from "./settle.ts";

export interface CollectLimits {
  deadline: number;
  readLines: number;
}

const replay = async (deps: HerdrDeps, receipt: ReceiptRecord, limits: CollectLimits): Promise<HandoffResult> => {
  const agent = await observeSurviving(deps.herdr, receipt.identity, limits.deadline);
  // A cursor means nothing under another Herdr server (its sequence restarted): that is no longer the settled state.
  const current =
    agent &&
    !isNewEpoch(agent, receipt.identity.terminal_id) &&
    sameIdentity(agent, receipt.identity) &&
    isSettled(agent.status) &&
    agent.stateChangeSeq === receipt.settled_seq;
  if (agent && current) {
    const capture = await captureSettled(deps.herdr, receipt.identity, agent, limits.readLines, limits.deadline);
    if (capture.stable) {
      return { ...resultOf(receipt), status: agent.status, state_change_seq: agent.stateChangeSeq, output: capture.text };
    }
  }
  return { ...resultOf(receipt), stage: "collect", error: "cursor_superseded" };
};

const fail = async (deps: HerdrDeps, receipt: ReceiptRecord, failure: "identity_changed" | "cursor_superseded") =>
  resultOf(await transitionReceipt(deps, receipt.receipt_id, [receipt.state], { state: "failed", failure }));

const captureOf = (deps: HerdrDeps, receipt: ReceiptRecord, settled: HerdrAgent, limits: CollectLimits) =>
  captureSettled(deps.herdr, receipt.identity, settled, limits.readLines, limits.deadline);

const collectPending = async (
  deps: HerdrDeps,
  receipt: ReceiptRecord,
  limits: CollectLimits,
  signal?: AbortSignal,
): Promise<HandoffResult> => {
  const afterSeq = receipt.after_seq ?? Number.MAX_SAFE_INTEGER;
  let outcome = await waitForSettled(deps.herdr, receipt.identity, afterSeq, limits.deadline, signal);
  let capture = outcome.kind === "settled" ? await captureOf(deps, receipt, outcome.agent, limits) : undefined;
  // A new Herdr server took the pane over while the screen was read: the turn is still this one, settled; the
  // pending receipt's turn ends at the new server's first settled status.
  while (outcome.kind === "settled" && capture?.epochChanged) {
    const rebased = { ...receipt.identity, terminal_id: outcome.agent.terminalId };
    outcome = await waitForSettled(deps.herdr, rebased, afterSeq, limits.deadline, signal);
    capture = outcome.kind === "settled" ? await captureOf(deps, receipt, outcome.agent, limits) : undefined;
  }
  if (outcome.kind === "cancelled") return resultOf(receipt);
  if (outcome.kind === "timeout") return { ...resultOf(receipt), stage: "collect", error: "timeout" };
  if (outcome.kind === "gone" || !capture) return fail(deps, receipt, "identity_changed");
  // The agent moved on while its screen was read: the text may already hold a later task.
  if (!capture.stable) return fail(deps, receipt, "cursor_superseded");
  const done = await transitionReceipt(deps, receipt.receipt_id, ["pending"], {
    state: "completed",
    // The settled cursor belongs to the server it was read from: record that server's terminal beside it.
    identity: { ...receipt.identity, terminal_id: outcome.agent.terminalId },
    settled_seq: outcome.agent.stateChangeSeq,
    settled_status: outcome.agent.status,
  });
  if (done.state !== "completed" || done.settled_seq !== outcome.agent.stateChangeSeq) return resultOf(done);
  return {
    ...resultOf(done),
    status: outcome.agent.status,
    state_change_seq: outcome.agent.stateChangeSeq,
    output: capture.text,
  };
};

/** One receipt's result now (replay, failure, ambiguity) or after waiting for its turn to end. */
export const collectOne = async (
  deps: HerdrDeps,
  receipt: ReceiptRecord,
  limits: CollectLimits,
  signal?: AbortSignal,
): Promise<HandoffResult> => {
  switch (receipt.state) {
    case "completed":
      return replay(deps, receipt, limits);
    case "failed":
      return resultOf(receipt);
    case "reserved": {
      // Ambiguous delivery stays a barrier while its agent lives; once that exact agent is gone nothing can land.
      const agent = await observeSurviving(deps.herdr, receipt.identity, limits.deadline);
      return agent && sameIdentity(agent, receipt.identity) ? resultOf(receipt) : fail(deps, receipt, "identity_changed");
    }
    case "pending":
      return collectPending(deps, receipt, limits, signal);
  }
};

const isWinner = (result: HandoffResult): boolean => result.state === "completed" && result.output !== undefined;

/** mode=all: every result, in the given order. mode=first: the first completed result ends the other waits only. */
export const collectMany = async (
  deps: HerdrDeps,
  receipts: readonly ReceiptRecord[],
  mode: HandoffMode,
  limits: CollectLimits,
): Promise<HandoffOutput> => {
  if (mode === "all") return handoffOutput(mode, await Promise.all(receipts.map((r) => collectOne(deps, r, limits))));
  const controllers = receipts.map(() => new AbortController());
  const results = await Promise.all(
    receipts.map(async (receipt, index) => {
      const result = await collectOne(deps, receipt, limits, controllers[index]?.signal);
      if (isWinner(result)) abortOthers(controllers, index);
      return result;
    }),
  );
  return handoffOutput(mode, results);
};

/** `collect`: needs controller authority; every token is validated before anything waits. */
export const collectReceipts = async (
  deps: HerdrDeps,
  tokens: readonly string[],
  mode: HandoffMode,
  timeoutMs: number,
  readLines: number,
): Promise<HandoffOutput> => {
  if (new Set(tokens).size !== tokens.length) throw new AppError("INVALID_INPUT", "--receipt: each receipt may be given once");
  const deadline = Date.now() + timeoutMs;
  const authority = await loadAuthority(deps, deadline);
  const receipts = tokens.map((token) => findReceipt(deps.dirs, token, authority.controllerId));
  return collectMany(deps, receipts, mode, { deadline, readLines });
};
