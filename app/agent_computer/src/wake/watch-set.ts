// The watches of the agents armed on this host, kept in step with the registry: a new arming gets a watch and a
// pane tracker, a removed or re-made arming loses its watch, and ending a watch stops its tracker.
import type { Herdr } from "../adapters/herdr/client.ts";
import type { WakeRegistration } from "../local/wake-registrations.ts";
import { type AgentWatch, newAgentWatch, type WakeLog } from "./agent-watch.ts";
import { type PaneTracker, startPaneTracker } from "./pane-tracker.ts";
import { startTmuxPane, type TmuxPaneDeps } from "./tmux-pane.ts";

/** Where the registrations come from (local/wake-registrations.ts localWakeRegistry in production). */
export interface WakeRegistry {
  /** Changes whenever registrations are added or removed (cheap: polled every loop). */
  version(): number;
  list(): WakeRegistration[];
  /** Removes the arming, unless the agent re-armed since (another session, pane or terminal). */
  disarm(registration: WakeRegistration): void;
}

export interface WatchSetDeps {
  registry: WakeRegistry;
  herdrFor(registration: WakeRegistration): Herdr;
  /** How agents armed in tmux panes are reached (their hook states, the quiet time); without it they are disarmed. */
  tmux?: Omit<TmuxPaneDeps, "now">;
  log: WakeLog;
  now(): number;
}

/** A watch as the loop holds it: with the full tracker, which is stopped when the watch ends. */
export type Watched = AgentWatch & { tracker: PaneTracker };

// Internal timings that are not policy: how a status wait is bounded and how often registrations are re-read.
const STATUS_CONFIRM_MS = 250;
const STATUS_WAIT_MS = 30_000;
const HERDR_RETRY_MS = 1_000;
const RELIST_MS = 1_000;
/** After a Herdr handoff an agent is missing for about 0.4 s while Herdr re-detects it; give it this long. */
const REDETECT_GRACE_MS = 3_000;

const sameArming = (a: WakeRegistration, b: WakeRegistration): boolean =>
  a.session_id === b.session_id && a.pane_id === b.pane_id && a.terminal_id === b.terminal_id;

/** onStatusChange: a pane's status changed, so every agent deserves a look now. */
export const createWatchSet = (deps: WatchSetDeps, onStatusChange: () => void) => {
  const watches = new Map<string, Watched>();

  /** Ends a watch; disarm also removes the arming itself (the agent left, its session ended). */
  const forget = async (w: Watched, reason: string, disarm: boolean): Promise<void> => {
    if (w.gone) return;
    w.gone = true;
    watches.delete(w.reg.agent_id);
    if (disarm) deps.registry.disarm(w.reg);
    deps.log("info", disarm ? "auto-wake disarmed" : "auto-wake watch ended", { agent_id: w.reg.agent_id, reason });
    await w.tracker.stop();
  };

  const startTmux = (reg: WakeRegistration & { tmux: NonNullable<WakeRegistration["tmux"]> }): Watched => {
    let w: Watched | undefined;
    const events = { onChange: onStatusChange, onGone: (reason: string) => (w ? void forget(w, reason, true) : undefined) };
    if (!deps.tmux) {
      const none = { view: () => null, observe: () => false, stop: async () => undefined };
      const unserved: Watched = { ...newAgentWatch(reg, deps.herdrFor(reg), none), tracker: none };
      deps.log("warn", "this watcher cannot reach tmux panes", { agent_id: reg.agent_id });
      return unserved;
    }
    const pane = startTmuxPane(reg, { ...deps.tmux, now: deps.now }, events);
    w = { ...newAgentWatch(reg, pane.herdr, pane.tracker), tracker: pane.tracker };
    return w;
  };

  const start = (reg: WakeRegistration): Watched => {
    if (reg.tmux) return startTmux({ ...reg, tmux: reg.tmux });
    const herdr = deps.herdrFor(reg);
    const tracker = startPaneTracker({
      herdr,
      paneId: reg.pane_id,
      terminalId: reg.terminal_id,
      kind: reg.kind,
      redetectGraceMs: REDETECT_GRACE_MS,
      confirmAfterMs: STATUS_CONFIRM_MS,
      waitTimeoutMs: STATUS_WAIT_MS,
      retryMs: HERDR_RETRY_MS,
      onChange: onStatusChange,
      onGone: (reason) => void forget(w, reason, true),
      now: deps.now,
    });
    const w: Watched = { ...newAgentWatch(reg, herdr, tracker), tracker };
    return w;
  };

  let seenVersion = Number.NaN;
  let listedAt = 0;
  /** Re-reads the registry when it changed, or once a RELIST_MS in case a change went unnoticed. */
  const sync = async (): Promise<void> => {
    const version = deps.registry.version();
    if (version === seenVersion && deps.now() - listedAt < RELIST_MS) return;
    seenVersion = version;
    listedAt = deps.now();
    const wanted = new Map(deps.registry.list().map((r) => [r.agent_id, r]));
    for (const w of [...watches.values()]) {
      const reg = wanted.get(w.reg.agent_id);
      if (!reg || !sameArming(reg, w.reg)) await forget(w, reg ? "re-armed" : "registration removed", false);
    }
    for (const reg of wanted.values()) {
      if (!watches.has(reg.agent_id)) {
        watches.set(reg.agent_id, start(reg));
        deps.log("info", "watching armed agent", { agent_id: reg.agent_id });
      }
    }
  };

  return {
    all: (): IterableIterator<Watched> => watches.values(),
    size: (): number => watches.size,
    sync,
    forget,
    stopAll: (): Promise<unknown> => Promise.all([...watches.values()].map((w) => forget(w, "watcher stopping", false))),
  };
};
