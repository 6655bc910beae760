// Herdr server epochs. A live handoff (upgrade, `herdr server restart --handoff`) or a cold restart puts the panes
// under a new server process: pane ids are kept, every pane gets a new terminal id, and the global
// state_change_seq starts again at 0. So the terminal id is not part of an agent's identity: it names the server
// epoch an observation (and a cursor) was made in. The rule, in full: docs/herdr-identity.md.
import { type Herdr, type HerdrAgent, isHerdrError } from "../../adapters/herdr/client.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { surviving } from "./herdr-reconnect.ts";

/**
 * After a new server Herdr re-detects each agent: missing for about 0.4 s, then `unknown` at seq 0 for a few
 * seconds. A read of an agent recorded under another terminal waits that out for at most this long in all, and
 * for a missing agent (a cold restart leaves it missing for good) at most MISSING_GRACE_MS.
 */
export const RESTORE_GRACE_MS = 15_000;
export const MISSING_GRACE_MS = 3_000;
const RESTORE_POLL_MS = 100;

/** `unknown` at seq 0: not yet re-detected by a new server (or never classified at all). */
export const isRedetecting = (agent: HerdrAgent): boolean => agent.status === "unknown" && agent.stateChangeSeq === 0;

/** An observation made under another server epoch than the recorded terminal's. */
export const isNewEpoch = (agent: { terminalId: string }, recordedTerminal: string | null | undefined): boolean =>
  recordedTerminal !== undefined && recordedTerminal !== null && agent.terminalId !== recordedTerminal;

const probeAgent = async (herdr: Herdr, paneId: string): Promise<HerdrAgent | undefined> => {
  try {
    return await herdr.getAgent(paneId);
  } catch (error) {
    if (isHerdrError(error, "not_found")) return undefined;
    throw error;
  }
};

/** The terminal id now in the pane, or undefined when Herdr says the pane is gone. */
const paneTerminal = async (herdr: Herdr, paneId: string): Promise<string | undefined> => {
  try {
    return (await herdr.getPane(paneId)).terminalId;
  } catch (error) {
    if (isHerdrError(error, "not_found") && error.herdrCode === "pane_not_found") return undefined;
    throw error;
  }
};

/**
 * The agent in a pane, read the way a record made under `recordedTerminal` must read it: when the pane now has
 * another terminal (a new Herdr server), an agent missing or `unknown` at seq 0 is Herdr re-detecting it, so the
 * read is made again until the agent shows its real status, the grace ends, or the deadline. Undefined: the pane
 * is gone, or it holds no agent (under the same server at once; under a new one once the grace ended: a cold
 * restart left it dead). Reads cut by the server change are made again too; other failures are thrown as Herdr's
 * (observeAcrossEpochOrFail turns them into the caller's stable error).
 */
export const observeAcrossEpoch = async (
  herdr: Herdr,
  paneId: string,
  recordedTerminal: string | null | undefined,
  deadline: number,
  signal?: AbortSignal,
): Promise<HerdrAgent | undefined> => {
  const graceEnd = Math.min(deadline, Date.now() + RESTORE_GRACE_MS);
  const missingEnd = Math.min(graceEnd, Date.now() + MISSING_GRACE_MS);
  for (;;) {
    const agent = await surviving(() => probeAgent(herdr, paneId), deadline);
    if (agent && (!isNewEpoch(agent, recordedTerminal) || !isRedetecting(agent))) return agent;
    if (!agent) {
      const terminal = await surviving(() => paneTerminal(herdr, paneId), deadline);
      if (terminal === undefined || !isNewEpoch({ terminalId: terminal }, recordedTerminal)) return undefined;
      if (Date.now() >= missingEnd) return undefined;
    }
    if (Date.now() >= graceEnd || signal?.aborted) return agent;
    await Bun.sleep(Math.max(0, Math.min(RESTORE_POLL_MS, graceEnd - Date.now())));
  }
};

export const observeAcrossEpochOrFail = async (
  herdr: Herdr,
  paneId: string,
  recordedTerminal: string | null | undefined,
  deadline: number,
): Promise<HerdrAgent | undefined> => {
  try {
    return await observeAcrossEpoch(herdr, paneId, recordedTerminal, deadline);
  } catch (error) {
    throw herdrFailure(error);
  }
};
