// abandon: releases the admission barrier of a reserved or pending receipt, never the agent. It needs controller
// authority and a fresh observation that the exact leased agent is settled; it stops nothing.
import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import { isSettled, sameIdentity } from "./agent-identity.ts";
import { loadAuthority } from "./controller-authority.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { findReceipt, isOutstanding, tokenOf, transitionReceipt } from "./receipts.ts";
import { observeSurviving } from "./settle.ts";

export interface AbandonResult {
  receipt: string;
  target: string;
  state: "failed";
  failure: "abandoned";
  observed_status: string;
  observed_seq: number;
}

/**
 * abandon has no --timeout-ms: its reads (the caller's pane, then the agent) wait out a Herdr server restart or live
 * handoff (seconds) for at most this long together, then end UNAVAILABLE instead of hanging.
 */
export const ABANDON_READ_DEADLINE_MS = 30_000;

export const abandonReceipt = async (
  deps: HerdrDeps,
  token: string,
  readDeadlineMs = ABANDON_READ_DEADLINE_MS,
): Promise<AbandonResult> => {
  const deadline = Date.now() + readDeadlineMs;
  const authority = await loadAuthority(deps, deadline);
  const receipt = findReceipt(deps.dirs, token, authority.controllerId);
  if (!isOutstanding(receipt)) throw new AppError("CONFLICT", `receipt ${token} is already ${receipt.state}`);
  const agent = await observeSurviving(deps.herdr, receipt.identity, deadline);
  if (!agent || !sameIdentity(agent, receipt.identity)) {
    throw new AppError("IDENTITY_CHANGED", `${receipt.target}: the leased agent is no longer in its pane`, {
      hint: "collect marks this receipt failed (identity_changed)",
    });
  }
  if (!isSettled(agent.status)) {
    throw new AppError("AGENT_NOT_SETTLED", `${receipt.target} is ${agent.status}; abandon needs it idle, done or blocked`, {
      hint: `wait for its turn to end (${commandLine("herdr-lease-cli", "wait-any", "--worker", receipt.target)}), then abandon`,
    });
  }
  await authority.verify();
  const next = await transitionReceipt(deps, receipt.receipt_id, ["reserved", "pending"], {
    state: "failed",
    failure: "abandoned",
  });
  if (next.failure !== "abandoned") throw new AppError("CONFLICT", `receipt ${token} was decided meanwhile (${next.state})`);
  return {
    receipt: tokenOf(next),
    target: next.target,
    state: "failed",
    failure: "abandoned",
    observed_status: agent.status,
    observed_seq: agent.stateChangeSeq,
  };
};
