// Waiting for a turn to end and capturing what it left on screen. Herdr's waits are cursor-less, so every wait
// here is followed by a fresh `agent get`, and a settled state only counts with state_change_seq strictly greater
// than the caller's cursor: the counter is global to the Herdr server, so it is compared with >, never +1.

import { createHash } from "node:crypto";
import { type Herdr, type HerdrAgent, type HerdrAgentStatus, isHerdrError } from "../../adapters/herdr/client.ts";
import { type AgentIdentity, isSettled, sameIdentity } from "./agent-identity.ts";
import { isNewEpoch, isRedetecting, observeAcrossEpoch, observeAcrossEpochOrFail } from "./herdr-epoch.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { isInterrupted, pauseBefore, surviving } from "./herdr-reconnect.ts";

export type SettleOutcome =
  | { kind: "settled"; agent: HerdrAgent }
  /** The pane, or the exact agent identity in it, is gone. */
  | { kind: "gone" }
  | { kind: "timeout" }
  | { kind: "cancelled" };

/** One herdr wait never runs longer than this, so a lost server or a stuck CLI is noticed. */
const WAIT_SLICE_MS = 30_000;
/** `agent wait --until working` for an agent still settled at an old cursor. */
const ACTIVITY_SLICE_MS = 5_000;
const UNKNOWN_POLL_MS = 250;

const isCancelled = (error: unknown, signal?: AbortSignal): boolean =>
  isHerdrError(error, "cancelled") || signal?.aborted === true;

/**
 * The agent in the pane now, or undefined when it is gone; a read cut by a Herdr restart is tried again until the
 * deadline, a pane under a new Herdr server than `identity`'s terminal is read through Herdr's re-detection of its
 * agent (herdr-epoch.ts), and any other failure is the caller's stable error.
 */
export const observeSurviving = async (
  herdr: Herdr,
  identity: Pick<AgentIdentity, "pane_id" | "terminal_id">,
  deadline: number,
): Promise<HerdrAgent | undefined> => observeAcrossEpochOrFail(herdr, identity.pane_id, identity.terminal_id, deadline);

/**
 * Herdr's wait answers are never taken as the observation: `agent wait` may answer a status the agent already
 * left (on its current cursor), so every wait is followed by a fresh `agent get`.
 *
 * A new Herdr server (the pane's terminal is not the one the cursor was read under) restarted the sequence at 0,
 * so the cursor is rebased: when a turn after the cursor was under way (`turnOpen` for the cursor's own epoch,
 * else the last status seen before the change was not settled), the new server's first settled status ends that
 * turn (cursor 0); otherwise the status the agent is restored with is where it already was, and only a settled
 * status after it counts. Either way a turn is counted once and none is lost.
 */
export const waitForSettled = async (
  herdr: Herdr,
  identity: AgentIdentity,
  afterSeq: number,
  deadline: number,
  signal?: AbortSignal,
  turnOpen = true,
): Promise<SettleOutcome> => {
  let epochTerminal = identity.terminal_id;
  let cursor = afterSeq;
  let lastStatus: HerdrAgentStatus | undefined;
  let skipRestored = false;
  for (;;) {
    if (signal?.aborted) return { kind: "cancelled" };
    let agent: HerdrAgent | undefined;
    try {
      agent = await observeAcrossEpoch(herdr, identity.pane_id, epochTerminal, deadline, signal);
    } catch (error) {
      if (isCancelled(error, signal)) return { kind: "cancelled" };
      throw herdrFailure(error);
    }
    if (!agent || !sameIdentity(agent, identity)) return { kind: "gone" };
    if (isNewEpoch(agent, epochTerminal)) {
      skipRestored = !(lastStatus === undefined ? turnOpen : !isSettled(lastStatus));
      epochTerminal = agent.terminalId;
      cursor = 0;
    }
    if (skipRestored && !isRedetecting(agent)) {
      cursor = agent.stateChangeSeq;
      skipRestored = false;
    }
    lastStatus = agent.status;
    if (!skipRestored && isSettled(agent.status) && agent.stateChangeSeq > cursor) return { kind: "settled", agent };
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { kind: "timeout" };
    const slice = Math.min(remaining, WAIT_SLICE_MS);
    try {
      if (agent.status === "working") {
        await herdr.waitAgent(identity.pane_id, { timeoutMs: slice, signal });
      } else if (isSettled(agent.status)) {
        // Settled at or before the cursor: the turn we wait for has not been seen working yet.
        await herdr.waitAgent(identity.pane_id, { until: ["working"], timeoutMs: Math.min(slice, ACTIVITY_SLICE_MS), signal });
      } else {
        await Bun.sleep(Math.min(slice, UNKNOWN_POLL_MS));
      }
    } catch (error) {
      if (isCancelled(error, signal)) return { kind: "cancelled" };
      if (isInterrupted(error)) {
        await pauseBefore(deadline);
        continue;
      }
      // A wait that timed out, or whose agent exited or vanished meanwhile, is decided by the next observation.
      if (!isHerdrError(error, "timeout") && !isHerdrError(error, "not_running") && !isHerdrError(error, "not_found")) {
        throw herdrFailure(error);
      }
    }
  }
};

export interface Capture {
  text: string;
  /** True when identity, settled status and cursor were unchanged after the read. */
  stable: boolean;
  /** A new Herdr server took the pane over during the read: the turn is still the settled one, read it again. */
  epochChanged: boolean;
  sha256: string;
}

/**
 * Reads the agent's recent output, then re-reads identity and cursor: output of a later turn is never passed off
 * as this one's. Until `deadline`, a read cut by a Herdr restart is tried again.
 */
export const captureSettled = async (
  herdr: Herdr,
  identity: AgentIdentity,
  settled: HerdrAgent,
  lines: number,
  deadline = 0,
): Promise<Capture> => {
  let text: string;
  try {
    text = await surviving(() => herdr.readAgent(identity.pane_id, { source: "recent", lines }), deadline);
  } catch (error) {
    // Alternate-screen agents refuse long reads while busy; the visible screen is what there is.
    if (!isHerdrError(error, "not_ready")) throw herdrFailure(error);
    text = await surviving(() => herdr.readAgent(identity.pane_id, { source: "visible" }), deadline).catch((e: unknown) => {
      throw herdrFailure(e);
    });
  }
  const again = await observeAcrossEpochOrFail(herdr, identity.pane_id, settled.terminalId, deadline);
  const epochChanged = again !== undefined && isNewEpoch(again, settled.terminalId);
  const stable =
    again !== undefined &&
    !epochChanged &&
    sameIdentity(again, identity) &&
    isSettled(again.status) &&
    again.stateChangeSeq === settled.stateChangeSeq;
  return { text, stable, epochChanged, sha256: createHash("sha256").update(text).digest("hex") };
};

/** Ends the waits of a first-of race except the winner's (the agents themselves are untouched). */
export const abortOthers = (controllers: readonly AbortController[], winner: number): void => {
  for (const [index, controller] of controllers.entries()) if (index !== winner) controller.abort();
};
