// An agent armed in a tmux pane, seen by the watcher through the same two shapes as a Herdr pane: a status the
// policy decides on (from the client's own hooks and tmux's facts) and a prompt call that types the fixed line.
// The status is "idle" only when the hooks said idle, nobody typed in the pane for the quiet time, and the pane is
// not in copy mode; a pane that is gone or runs another process than at arming ends the arming.

import type { Herdr, HerdrAgent, HerdrAgentStatus } from "../adapters/herdr/client.ts";
import { HerdrError } from "../adapters/herdr/failure-kinds.ts";
import { createTmux, type Tmux, type TmuxPaneFacts } from "../adapters/tmux.ts";
import { type AgentStateRecord, readAgentState } from "../local/agent-state.ts";
import type { WakeRegistration } from "../local/wake-registrations.ts";
import type { Paths } from "../paths.ts";
import type { PaneTracker } from "./pane-tracker.ts";

type TmuxArming = NonNullable<WakeRegistration["tmux"]>;

/** Quiet time after the last output or key in the pane before it may be typed into. */
export const TMUX_QUIET_MS_DEFAULT = 5_000;
const QUIET_ENV = "AGENT_COMPUTER_WAKE_TMUX_QUIET_MS";
const TRACK_MS = 500;

export const tmuxQuietMsFrom = (env: Readonly<Record<string, string | undefined>>): number => {
  const n = Number(env[QUIET_ENV]);
  return Number.isInteger(n) && n >= 1_000 && n <= 600_000 ? n : TMUX_QUIET_MS_DEFAULT;
};

export type TmuxPaneLook =
  | { kind: "gone"; reason: "agent_left" | "agent_replaced" }
  | { kind: "status"; status: HerdrAgentStatus; why: string };

/** The pure rule: what the pane's facts and the hook's last state mean for waking. */
export const judgeTmuxPane = (input: {
  facts: TmuxPaneFacts | undefined;
  arming: TmuxArming;
  state: AgentStateRecord | undefined;
  now: number;
  quietMs: number;
}): TmuxPaneLook => {
  const { facts, arming } = input;
  if (!facts || facts.dead) return { kind: "gone", reason: "agent_left" };
  if (facts.panePid !== arming.pane_pid || facts.currentCommand !== arming.command) {
    return { kind: "gone", reason: "agent_replaced" };
  }
  // Keys typed in copy mode go to tmux, and a person is reading the scrollback: never type then.
  if (facts.inMode) return { kind: "status", status: "blocked", why: "copy_mode" };
  const lastActivity = Math.max(facts.windowActivityMs, facts.clientActivityMs);
  if (input.now - lastActivity < input.quietMs) return { kind: "status", status: "blocked", why: "recent_activity" };
  if (!input.state) return { kind: "status", status: "unknown", why: "no_hook_state" };
  return { kind: "status", status: input.state.state, why: `hook_${input.state.state}` };
};

const asAgent = (reg: WakeRegistration, status: HerdrAgentStatus): HerdrAgent => ({
  paneId: reg.pane_id,
  terminalId: reg.terminal_id,
  workspaceId: "tmux",
  tabId: "tmux",
  name: undefined,
  kind: reg.kind ?? undefined,
  status,
  stateChangeSeq: 0,
  cwd: undefined,
  focused: false,
  interactiveReady: status === "idle",
  launchPending: false,
});

export interface TmuxPaneDeps {
  paths: Paths;
  env: Readonly<Record<string, string | undefined>>;
  now(): number;
  /** Tests inject a client; production builds one on the recorded socket. */
  tmux?: Tmux;
}

/** The Herdr-shaped driver and tracker of one tmux arming (watch-set.ts holds them like a Herdr pane's). */
export const startTmuxPane = (
  reg: WakeRegistration & { tmux: TmuxArming },
  deps: TmuxPaneDeps,
  events: { onChange(): void; onGone(reason: "agent_left" | "agent_replaced"): void },
): { herdr: Pick<Herdr, "getAgent" | "promptAgent">; tracker: PaneTracker } => {
  const arming = reg.tmux;
  const tmux = deps.tmux ?? createTmux({ bin: arming.bin, socket: arming.socket, env: deps.env });
  const quietMs = tmuxQuietMsFrom(deps.env);
  const place = { socket: arming.socket, pane: arming.pane };
  const look = async (): Promise<TmuxPaneLook> =>
    judgeTmuxPane({
      facts: await tmux.paneFacts(arming.pane),
      arming,
      state: readAgentState(deps.paths, place),
      now: deps.now(),
      quietMs,
    });
  const gone = (reason: string) =>
    new HerdrError("not_found", `tmux pane ${arming.pane}: ${reason}`, { command: "tmux display-message" });

  let status: HerdrAgentStatus | null = null;
  let stopped = false;
  let ended = false;
  const accept = (seen: TmuxPaneLook): void => {
    if (seen.kind === "gone") {
      if (!ended) events.onGone(seen.reason);
      ended = true;
      return;
    }
    if (status !== seen.status) {
      status = seen.status;
      events.onChange();
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = look()
      .then(accept)
      .catch(() => {
        status = null;
      })
      .finally(() => {
        if (!stopped && !ended) timer = setTimeout(tick, TRACK_MS);
      });
  };
  tick();

  return {
    herdr: {
      getAgent: async () => {
        const seen = await look();
        if (seen.kind === "gone") throw gone(seen.reason);
        return asAgent(reg, seen.status);
      },
      // The last look, right before typing: a person who started typing or an agent that got busy since the
      // policy decided is never typed over.
      promptAgent: async (_pane, text) => {
        const seen = await look();
        if (seen.kind === "gone") throw gone(seen.reason);
        if (seen.status !== "idle") {
          throw new HerdrError("not_ready", `tmux pane ${arming.pane} is not idle (${seen.why})`, { command: "tmux send-keys" });
        }
        await tmux.typeLine(arming.pane, text);
        return asAgent(reg, "working");
      },
    },
    tracker: {
      view: () => (status === null ? null : { status, confirmed: false }),
      observe: (agent) => {
        accept({ kind: "status", status: agent.status, why: "observed" });
        return !ended;
      },
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    },
  };
};
