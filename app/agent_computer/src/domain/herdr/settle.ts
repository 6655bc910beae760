// Waiting for a turn to end and capturing what it left on screen. Herdr's waits are cursor-less, so every wait
// here is followed by a fresh `agent get`, and a settled state only counts with state_change_seq strictly greater
// than the caller's cursor: the counter is global to the Herdr server, so it is compared with >, never +1.

import { createHash } from "node:crypto";
import { type Herdr, type HerdrAgent, isHerdrError } from "../../adapters/herdr/client.ts";
import { type AgentIdentity, isSettled, observeAgent, sameIdentity } from "./agent-identity.ts";
import { herdrFailure } from "./herdr-failure.ts";

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

export const waitForSettled = async (
  herdr: Herdr,
  identity: AgentIdentity,
  afterSeq: number,
  deadline: number,
  signal?: AbortSignal,
): Promise<SettleOutcome> => {
  // What the last `agent wait` answered (the agent as of the matching change) saves one `agent get`.
  let answered: HerdrAgent | undefined;
  for (;;) {
    if (signal?.aborted) return { kind: "cancelled" };
    let agent: HerdrAgent | undefined = answered;
    answered = undefined;
    try {
      agent ??= await observeAgent(herdr, identity.pane_id, signal);
    } catch (error) {
      if (isCancelled(error, signal)) return { kind: "cancelled" };
      throw error;
    }
    if (!agent || !sameIdentity(agent, identity)) return { kind: "gone" };
    if (isSettled(agent.status) && agent.stateChangeSeq > afterSeq) return { kind: "settled", agent };
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { kind: "timeout" };
    const slice = Math.min(remaining, WAIT_SLICE_MS);
    try {
      if (agent.status === "working") {
        const seen = await herdr.waitAgent(identity.pane_id, { timeoutMs: slice, signal });
        if (sameIdentity(seen, identity) && isSettled(seen.status) && seen.stateChangeSeq > afterSeq) answered = seen;
      } else if (isSettled(agent.status)) {
        // Settled at or before the cursor: the turn we wait for has not been seen working yet.
        await herdr.waitAgent(identity.pane_id, { until: ["working"], timeoutMs: Math.min(slice, ACTIVITY_SLICE_MS), signal });
      } else {
        await Bun.sleep(Math.min(slice, UNKNOWN_POLL_MS));
      }
    } catch (error) {
      if (isCancelled(error, signal)) return { kind: "cancelled" };
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
  sha256: string;
}

/** Reads the agent's recent output, then re-reads identity and cursor: output of a later turn is never passed off as this one's. */
export const captureSettled = async (
  herdr: Herdr,
  identity: AgentIdentity,
  settled: HerdrAgent,
  lines: number,
): Promise<Capture> => {
  let text: string;
  try {
    text = await herdr.readAgent(identity.pane_id, { source: "recent", lines });
  } catch (error) {
    // Alternate-screen agents refuse long reads while busy; the visible screen is what there is.
    if (!isHerdrError(error, "not_ready")) throw herdrFailure(error);
    text = await herdr.readAgent(identity.pane_id, { source: "visible" }).catch((e: unknown) => {
      throw herdrFailure(e);
    });
  }
  const again = await observeAgent(herdr, identity.pane_id);
  const stable =
    again !== undefined &&
    sameIdentity(again, identity) &&
    isSettled(again.status) &&
    again.stateChangeSeq === settled.stateChangeSeq;
  return { text, stable, sha256: createHash("sha256").update(text).digest("hex") };
};

/** Ends the waits of a first-of race except the winner's (the agents themselves are untouched). */
export const abortOthers = (controllers: readonly AbortController[], winner: number): void => {
  for (const [index, controller] of controllers.entries()) if (index !== winner) controller.abort();
};
