// One armed agent as the watcher follows it: look at its backlog, decide with the pure policy, and deliver the
// fixed prompt. Every effect comes in through AgentWakeDeps, so the whole per-agent path runs in a test with fakes.
import type { Herdr } from "../adapters/herdr/client.ts";
import { isHerdrError } from "../adapters/herdr/failure-kinds.ts";
import { decideWake, type WakeDecision } from "../domain/wake/policy.ts";
import { buildWakePrompt } from "../domain/wake/prompt.ts";
import type { IssueOutcome } from "../domain/wake/tokens.ts";
import type { WakeTuning } from "../domain/wake/tuning.ts";
import type { WakeRegistration } from "../local/wake-registrations.ts";
import type { WakeBacklog } from "../store/port-wake.ts";
import type { PaneTracker } from "./pane-tracker.ts";

export type WakeLog = (level: "debug" | "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;

/** What deciding and delivering a wake for one agent needs from the store, the clock and the log. */
export interface AgentWakeDeps {
  /** This host's name, as sessions record it. */
  host: string;
  tuning: WakeTuning;
  log: WakeLog;
  now(): number;
  backlog(reg: WakeRegistration, now: number): Promise<WakeBacklog>;
  /** Issues a wake token in one transaction that re-checks the store-side rules (tokens.ts issueWake). */
  issue(reg: WakeRegistration): Promise<IssueOutcome>;
  /** The prompt never reached the pane: the token stops blocking new wakes (tokens.ts failWake). */
  fail(tokenId: string): Promise<void>;
  /**
   * How long an agent with no mail waits for its next look: longer than tuning.pollMs once NOTIFY announces every
   * delivery (watcher.ts), so only a lost notification waits that long. Absent: tuning.pollMs.
   */
  quietPollMs?(): number;
}

export interface AgentWatch {
  reg: WakeRegistration;
  herdr: Pick<Herdr, "getAgent" | "promptAgent">;
  tracker: Pick<PaneTracker, "view" | "observe">;
  firstSeenAt: number | null;
  deferSince: number | null;
  /** Why the agent's mail last waited ("working", "outstanding", …), so the log says it once per change, not per look. */
  waitingFor: Extract<WakeDecision, { kind: "wait" }>["reason"] | null;
  retryAt: number;
  failures: number;
  /** When this agent next needs a look even if nothing is announced. */
  dueAt: number;
  /** When the agent's session runs out, as last read: a quiet agent is looked at then, to disarm it. */
  sessionExpiresAt?: number;
  busy: boolean;
  /**
   * Something changed while a look was in flight (a NOTIFY, a status change): that look may have read the store or
   * the pane before the change, so another follows as soon as it ends instead of at the time it planned.
   */
  changedDuringLook: boolean;
  gone: boolean;
}

/** What a look at one agent leaves the watcher to do: keep watching, or end the arming for this reason. */
export type AgentOutcome = { kind: "keep" } | { kind: "disarm"; reason: string };

const KEEP: AgentOutcome = { kind: "keep" };
const disarm = (reason: string): AgentOutcome => ({ kind: "disarm", reason });

/** How long after a failed store poll the agent is looked at again. */
export const STORE_RETRY_MS = 1_000;
const backoffMs = (failures: number): number => Math.min(60_000, 1_000 * 2 ** Math.max(0, failures - 1));

export const newAgentWatch = (reg: WakeRegistration, herdr: AgentWatch["herdr"], tracker: AgentWatch["tracker"]): AgentWatch => ({
  reg,
  herdr,
  tracker,
  firstSeenAt: null,
  deferSince: null,
  waitingFor: null,
  retryAt: 0,
  failures: 0,
  dueAt: 0,
  busy: false,
  changedDuringLook: false,
  gone: false,
});

/** A prompt (or the status check before it) failed: an agent that left is disarmed, anything else backs off. */
export const promptFailed = async (
  deps: AgentWakeDeps,
  w: AgentWatch,
  error: unknown,
  tokenId?: string,
): Promise<AgentOutcome> => {
  if (tokenId) await deps.fail(tokenId).catch(() => undefined);
  const kind = isHerdrError(error) ? error.kind : "internal";
  if (kind === "not_found" || kind === "not_running") return disarm("agent_left");
  w.failures += 1;
  w.retryAt = deps.now() + backoffMs(w.failures);
  deps.log("warn", "wake not delivered; will retry", { agent_id: w.reg.agent_id, kind, retry_in_ms: w.retryAt - deps.now() });
  return KEEP;
};

const storeFailed = (deps: AgentWakeDeps, w: AgentWatch, msg: string, error: unknown): AgentOutcome => {
  deps.log("warn", msg, { agent_id: w.reg.agent_id, error: error instanceof Error ? error.message : String(error) });
  w.dueAt = deps.now() + STORE_RETRY_MS;
  return KEEP;
};

/** Issues a token and types the fixed prompt into the agent's pane. */
export const deliverWake = async (
  deps: AgentWakeDeps,
  w: AgentWatch,
  how: { forced: boolean; verified: boolean },
): Promise<AgentOutcome> => {
  const outcome = await deps.issue(w.reg);
  if (!outcome.issued) {
    if (outcome.reason === "session_ended") return disarm(outcome.reason);
    if (outcome.reason === "hourly_cap") {
      w.retryAt = outcome.retryAt;
      deps.log("warn", "hourly wake cap reached; mail waits", {
        agent_id: w.reg.agent_id,
        until: new Date(outcome.retryAt).toISOString(),
      });
    }
    return KEEP;
  }
  try {
    await w.herdr.promptAgent(w.reg.pane_id, buildWakePrompt(w.reg.agent_id, outcome.count, outcome.token));
  } catch (error) {
    return promptFailed(deps, w, error, outcome.tokenId);
  }
  w.deferSince = null;
  w.failures = 0;
  // verified: the pane's status was read just before (the status wait could not vouch for it).
  deps.log("info", "wake sent", { agent_id: w.reg.agent_id, wake_id: outcome.tokenId, messages: outcome.count, ...how });
  return KEEP;
};

/** The policy's decision for this agent now; when the tracker cannot vouch for the status, Herdr is asked first. */
export const decideAgent = async (deps: AgentWakeDeps, w: AgentWatch): Promise<{ decision: WakeDecision; verified: boolean }> => {
  const now = deps.now();
  const backlog = await deps.backlog(w.reg, now);
  w.sessionExpiresAt = backlog.session?.expiresAt;
  w.firstSeenAt = backlog.count > 0 ? (w.firstSeenAt ?? now) : null;
  const view = {
    now,
    host: deps.host,
    backlog,
    firstSeenAt: w.firstSeenAt,
    deferSince: w.deferSince,
    retryAt: w.retryAt,
    // A tmux pane has no status of its own to be wrong about: a busy agent is waited for, never typed over.
    tuning: w.reg.tmux ? { ...deps.tuning, workingMaxMs: Number.POSITIVE_INFINITY } : deps.tuning,
  };
  const decision = decideWake({ ...view, pane: w.tracker.view() });
  if (decision.kind !== "prompt" || !decision.verify) return { decision, verified: false };
  const agent = await w.herdr.getAgent(w.reg.pane_id);
  if (!w.tracker.observe(agent)) return { decision: { kind: "nothing" }, verified: true };
  const pane = { status: agent.status, confirmed: true };
  return { decision: decideWake({ ...view, now: deps.now(), pane }), verified: true };
};

/** One look at one agent: decide, then act on the decision; sets when the agent is due again. */
export const lookAtAgent = async (deps: AgentWakeDeps, w: AgentWatch): Promise<AgentOutcome> => {
  let decided: { decision: WakeDecision; verified: boolean };
  try {
    decided = await decideAgent(deps, w);
  } catch (error) {
    if (isHerdrError(error)) return promptFailed(deps, w, error);
    return storeFailed(deps, w, "store poll failed", error);
  }
  const { decision, verified } = decided;
  const now = deps.now();
  w.dueAt = now + deps.tuning.pollMs;
  if (decision.kind === "disarm") return disarm(decision.reason);
  if (decision.kind === "nothing") {
    w.deferSince = null;
    // No mail: the next delivery's NOTIFY (or the session running out) is what the agent waits for.
    const quiet = deps.quietPollMs?.() ?? deps.tuning.pollMs;
    w.dueAt = Math.min(now + quiet, Math.max(now + deps.tuning.pollMs, w.sessionExpiresAt ?? Number.POSITIVE_INFINITY));
  }
  const waitingFor = decision.kind === "wait" ? decision.reason : null;
  if (waitingFor !== w.waitingFor && waitingFor !== null && waitingFor !== "coalescing") {
    deps.log("debug", "wake waits", { agent_id: w.reg.agent_id, reason: waitingFor, pane: w.tracker.view()?.status ?? null });
  }
  w.waitingFor = waitingFor;
  if (decision.kind === "wait") {
    if (decision.reason === "working" || decision.reason === "blocked") w.deferSince ??= now;
    if (decision.until !== null) w.dueAt = Math.min(w.dueAt, decision.until);
  }
  if (decision.kind === "prompt") {
    // Only issuing the token can throw here (a prompt failure is handled inside): the store is retried like a poll.
    return deliverWake(deps, w, { forced: decision.forced, verified }).catch((error) =>
      storeFailed(deps, w, "issuing a wake failed", error),
    );
  }
  return KEEP;
};
