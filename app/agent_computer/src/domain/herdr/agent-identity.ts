// The exact identity of a leased agent and the observations every decision is based on. Identity is the pane,
// the agent's name and kind, and its working directory; a different name, kind or directory in the same pane is
// another agent. The terminal id is recorded beside it but names the Herdr server epoch the record was made in,
// not the agent: a live handoff gives every pane a new terminal (herdr-epoch.ts, docs/herdr-identity.md).
import { type Herdr, type HerdrAgent, type HerdrAgentStatus, isHerdrError } from "../../adapters/herdr/client.ts";
import { AppError } from "../../errors.ts";
import { sameDirectory } from "./directories.ts";
import { observeAcrossEpochOrFail, RESTORE_GRACE_MS } from "./herdr-epoch.ts";
import { herdrFailure } from "./herdr-failure.ts";

export interface AgentIdentity {
  pane_id: string;
  /** The pane's terminal when this was recorded: which Herdr server epoch its cursors belong to. */
  terminal_id: string;
  agent_name: string;
  agent_kind: string;
  cwd: string;
}

/** Statuses a turn ends in. `done` is idle-not-yet-seen; `blocked` waits for a human. */
export const SETTLED_STATUSES: readonly HerdrAgentStatus[] = ["idle", "done", "blocked"];
export const isSettled = (status: HerdrAgentStatus): boolean => SETTLED_STATUSES.includes(status);
/** Statuses in which a new request may be typed: blocked is a human decision, never answered by a prompt. */
export const isReadyForRequest = (status: HerdrAgentStatus): boolean => status === "idle" || status === "done";

export const identityOf = (agent: HerdrAgent): AgentIdentity => ({
  pane_id: agent.paneId,
  terminal_id: agent.terminalId,
  agent_name: agent.name ?? "",
  agent_kind: agent.kind ?? "",
  cwd: agent.cwd ?? "",
});

export const sameIdentity = (agent: HerdrAgent, expected: AgentIdentity): boolean => {
  const seen = identityOf(agent);
  return (
    seen.pane_id === expected.pane_id &&
    seen.agent_name === expected.agent_name &&
    seen.agent_kind === expected.agent_kind &&
    sameDirectory(seen.cwd, expected.cwd)
  );
};

/**
 * The agent in a pane now, or undefined when the pane or its agent is gone. Given the terminal a record was made
 * under, a pane now under a new Herdr server is read through Herdr's re-detection of its agent (herdr-epoch.ts).
 */
export const observeAgent = async (
  herdr: Herdr,
  paneId: string,
  signal?: AbortSignal,
  recordedTerminal?: string | null,
): Promise<HerdrAgent | undefined> => {
  if (signal?.aborted) throw new AppError("TIMEOUT", "cancelled");
  if (recordedTerminal) return observeAcrossEpochOrFail(herdr, paneId, recordedTerminal, Date.now() + RESTORE_GRACE_MS);
  try {
    return await herdr.getAgent(paneId);
  } catch (error) {
    if (isHerdrError(error, "not_found")) return undefined;
    throw herdrFailure(error);
  }
};

/** Observes the leased agent and insists it is still exactly the leased identity. */
export const observeLeased = async (herdr: Herdr, identity: AgentIdentity, what: string): Promise<HerdrAgent> => {
  const agent = await observeAgent(herdr, identity.pane_id, undefined, identity.terminal_id);
  if (!agent || !sameIdentity(agent, identity)) {
    throw new AppError("IDENTITY_CHANGED", `${what}: the agent in pane ${identity.pane_id} is no longer ${identity.agent_name}`, {
      hint: agent ? "a different agent now runs in the leased pane; it is left alone" : "the leased agent or its pane is gone",
    });
  }
  return agent;
};
