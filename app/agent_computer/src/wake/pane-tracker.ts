// Follows one armed pane's agent status with a bounded `herdr agent wait` that returns as soon as the status
// leaves its current group. While such a wait has been in flight long enough to be connected, the status is
// known to be current without another Herdr call, so a wake can be typed at once; and a deferred wake fires
// the moment a working agent settles.
import { type Herdr, type HerdrAgent, type HerdrAgentStatus, isHerdrError } from "../adapters/herdr/client.ts";
import type { PaneStatusView } from "../domain/wake/policy.ts";

const ALL: readonly HerdrAgentStatus[] = ["idle", "done", "working", "blocked", "unknown"];
// idle and done are one group: a focus flip between them is not a change worth waking for (and Herdr 0.8 may
// not even report it to a wait, docs/herdr-facts.md §7 I#4473).
const group = (status: HerdrAgentStatus): string => (status === "done" ? "idle" : status);
const othersThan = (status: HerdrAgentStatus): HerdrAgentStatus[] => ALL.filter((s) => group(s) !== group(status));

export interface PaneTrackerOptions {
  herdr: Herdr;
  paneId: string;
  /**
   * The terminal the agent was armed in. Another terminal in the pane means a new Herdr server took it over (a
   * handoff gives every pane a new one): the same agent when its kind is the same, followed on in the new one.
   */
  terminalId: string;
  /** The kind the agent was armed as (null when Herdr named none): another kind in the pane is another agent. */
  kind: string | null;
  /** How long an agent missing from a pane under a new Herdr server is waited for (Herdr re-detecting it). */
  redetectGraceMs: number;
  /** A wait counts as connected (its status current) after running this long: covers the CLI's start-up. */
  confirmAfterMs: number;
  waitTimeoutMs: number;
  retryMs: number;
  onChange(): void;
  onGone(reason: "agent_left" | "agent_replaced"): void;
  now(): number;
}

export interface PaneTracker {
  view(): PaneStatusView | null;
  /** Takes a status read elsewhere (a verification before a prompt); false when the pane holds another agent. */
  observe(agent: HerdrAgent): boolean;
  stop(): Promise<void>;
}

const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });

export const startPaneTracker = (options: PaneTrackerOptions): PaneTracker => {
  const abort = new AbortController();
  const { signal } = abort;
  let status: HerdrAgentStatus | null = null;
  let waitingSince: number | null = null;
  let terminal = options.terminalId;
  let missingSince: number | null = null;

  const accept = (agent: HerdrAgent): boolean => {
    missingSince = null;
    if (agent.terminalId !== terminal) {
      if (options.kind !== null && agent.kind !== undefined && agent.kind !== options.kind) {
        options.onGone("agent_replaced");
        return false;
      }
      terminal = agent.terminalId;
    }
    if (status === null || group(agent.status) !== group(status)) {
      status = agent.status;
      options.onChange();
    }
    status = agent.status;
    return true;
  };

  /** The agent is missing, but its pane is under a new Herdr server that may not have re-detected it yet. */
  const redetecting = async (): Promise<boolean> => {
    missingSince ??= options.now();
    if (options.now() - missingSince > options.redetectGraceMs) return false;
    try {
      return (await options.herdr.getPane(options.paneId)).terminalId !== terminal;
    } catch {
      return false;
    }
  };

  const follow = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        if (status === null && !accept(await options.herdr.getAgent(options.paneId))) return;
        const current = status as HerdrAgentStatus;
        waitingSince = options.now();
        const until = othersThan(current);
        const agent = await options.herdr.waitAgent(options.paneId, { until, timeoutMs: options.waitTimeoutMs, signal });
        waitingSince = null;
        if (!accept(agent)) return;
      } catch (error) {
        waitingSince = null;
        if (signal.aborted) return;
        if (isHerdrError(error, "timeout")) continue; // nothing changed within the bound: wait again
        if (isHerdrError(error, "not_found") || isHerdrError(error, "not_running")) {
          if (await redetecting()) {
            status = null;
            await pause(options.retryMs, signal);
            continue;
          }
          options.onGone("agent_left");
          return;
        }
        // Herdr unreachable or confused: the status is unknown until it answers again.
        if (status !== null) {
          status = null;
          options.onChange();
        }
        await pause(options.retryMs, signal);
      }
    }
  };
  const done = follow();

  return {
    view: () => {
      if (status === null) return null;
      const confirmed = waitingSince !== null && options.now() - waitingSince >= options.confirmAfterMs;
      return { status, confirmed };
    },
    observe: (agent) => accept(agent),
    stop: async () => {
      abort.abort();
      await done;
    },
  };
};
