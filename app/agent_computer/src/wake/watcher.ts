// The wake watcher's loop: keep one AgentWatch per agent armed on this host, look at each when it is due (new mail
// announced by NOTIFY on PostgreSQL, a pane's status change, or the poll interval), and let agent-watch.ts decide
// and deliver. service.ts runs it, holding the host's watcher lock, inside the worker or as the light watcher.
import type { Herdr } from "../adapters/herdr/client.ts";
import { failWake, issueWake } from "../domain/wake/tokens.ts";
import type { WakeTuning } from "../domain/wake/tuning.ts";
import type { WakeRegistration } from "../local/wake-registrations.ts";
import type { Store } from "../store/port.ts";
import { WAKE_CHANNEL } from "../store/port.ts";
import {
  type AgentOutcome,
  type AgentWakeDeps,
  type AgentWatch,
  lookAtAgent,
  newAgentWatch,
  type WakeLog,
} from "./agent-watch.ts";
import { type PaneTracker, startPaneTracker } from "./pane-tracker.ts";

export type { WakeLog } from "./agent-watch.ts";

export interface WakeRegistry {
  /** Changes whenever registrations are added or removed (cheap: polled every loop). */
  version(): number;
  list(): WakeRegistration[];
  /** Removes the arming, unless the agent re-armed since (another session, pane or terminal). */
  disarm(registration: WakeRegistration): void;
}

export interface WakeWatcherDeps {
  store: Store;
  /** This host's name, as sessions record it. */
  host: string;
  newId(prefix: string): string;
  tuning: WakeTuning;
  registry: WakeRegistry;
  herdrFor(registration: WakeRegistration): Herdr;
  log: WakeLog;
  now(): number;
}

export interface WakeWatcherOptions {
  signal: AbortSignal;
  /** Light watcher: return "idle" once no agent has been armed for tuning.idleExitMs. The worker never does. */
  exitWhenIdle: boolean;
}

// Internal timings that are not policy: how a status wait is bounded and how often registrations are re-read.
const STATUS_CONFIRM_MS = 250;
const STATUS_WAIT_MS = 30_000;
const HERDR_RETRY_MS = 1_000;
const RELIST_MS = 1_000;

/** The per-agent deps over the store: one read for the backlog, tokens.ts for issuing and failing a wake. */
export const agentWakeDeps = (deps: WakeWatcherDeps): AgentWakeDeps => {
  const tokenDeps = () => ({ store: deps.store, now: deps.now(), newId: deps.newId });
  return {
    host: deps.host,
    tuning: deps.tuning,
    log: deps.log,
    now: deps.now,
    backlog: (reg, now) => deps.store.read((tx) => tx.wake.backlog(reg.session_id, reg.agent_id, now)),
    issue: (reg) => issueWake(tokenDeps(), { agentName: reg.agent_id, sessionId: reg.session_id, tuning: deps.tuning }),
    fail: (tokenId) => failWake(tokenDeps(), tokenId),
  };
};

/** A sleep that a kick (a NOTIFY hint, a status change, the abort signal) ends early; a kick while awake is kept. */
const rousableSleep = (signal: AbortSignal) => {
  let wake: (() => void) | undefined;
  let kicked = false;
  const kick = () => {
    kicked = true;
    wake?.();
  };
  signal.addEventListener("abort", kick);
  return {
    kick,
    /** Forgets kicks from before this point: the loop is about to look at everything anyway. */
    awake: () => {
      kicked = false;
    },
    sleep: (ms: number): Promise<void> =>
      kicked
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          }),
    dispose: () => signal.removeEventListener("abort", kick),
  };
};

const sameArming = (a: WakeRegistration, b: WakeRegistration): boolean =>
  a.session_id === b.session_id && a.pane_id === b.pane_id && a.terminal_id === b.terminal_id;

/** Runs until the signal aborts ("stopped") or, for a light watcher, until nothing is armed ("idle"). */
export const runWakeWatcher = async (deps: WakeWatcherDeps, options: WakeWatcherOptions): Promise<"stopped" | "idle"> => {
  const { tuning, log } = deps;
  const perAgent = agentWakeDeps(deps);
  const watches = new Map<string, AgentWatch & { tracker: PaneTracker }>();
  const rouse = rousableSleep(options.signal);
  let sleepingUntil = Number.POSITIVE_INFINITY;
  /** Something changed (a NOTIFY hint, a pane's status): look at every armed agent now. */
  const lookNow = () => {
    for (const w of watches.values()) w.dueAt = 0;
    rouse.kick();
  };

  const forget = async (w: AgentWatch & { tracker: PaneTracker }, reason: string, disarm: boolean): Promise<void> => {
    if (w.gone) return;
    w.gone = true;
    watches.delete(w.reg.agent_id);
    if (disarm) deps.registry.disarm(w.reg);
    log("info", disarm ? "auto-wake disarmed" : "auto-wake watch ended", { agent_id: w.reg.agent_id, reason });
    await w.tracker.stop();
  };

  const startWatch = (reg: WakeRegistration): AgentWatch & { tracker: PaneTracker } => {
    const herdr = deps.herdrFor(reg);
    const tracker = startPaneTracker({
      herdr,
      paneId: reg.pane_id,
      terminalId: reg.terminal_id,
      confirmAfterMs: STATUS_CONFIRM_MS,
      waitTimeoutMs: STATUS_WAIT_MS,
      retryMs: HERDR_RETRY_MS,
      onChange: lookNow,
      onGone: (reason) => void forget(w, reason, true),
      now: deps.now,
    });
    const w = { ...newAgentWatch(reg, herdr, tracker), tracker };
    return w;
  };

  let seenVersion = Number.NaN;
  let listedAt = 0;
  const syncRegistrations = async (): Promise<void> => {
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
        watches.set(reg.agent_id, startWatch(reg));
        log("info", "watching armed agent", { agent_id: reg.agent_id });
      }
    }
  };

  const inFlight = new Set<Promise<void>>();
  /** Starts a look at one agent in the background; the loop carries on with the others. */
  const look = (w: AgentWatch & { tracker: PaneTracker }, now: number): void => {
    w.busy = true;
    w.dueAt = now + tuning.pollMs;
    const running = lookAtAgent(perAgent, w)
      .then((outcome: AgentOutcome) => (outcome.kind === "disarm" ? forget(w, outcome.reason, true) : undefined))
      .finally(() => {
        w.busy = false;
        inFlight.delete(running);
        // The look may want another sooner than the loop planned (a coalescing window ending).
        if (w.dueAt < sleepingUntil) rouse.kick();
      });
    inFlight.add(running);
  };

  const unlisten = await deps.store.listen?.(WAKE_CHANNEL, lookNow).catch((error) => {
    log("warn", "LISTEN failed; polling only", { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  });
  let emptySince: number | null = null;
  let outcome: "stopped" | "idle" = "stopped";
  try {
    while (!options.signal.aborted) {
      rouse.awake();
      await syncRegistrations();
      const now = deps.now();
      emptySince = watches.size === 0 ? (emptySince ?? now) : null;
      if (options.exitWhenIdle && emptySince !== null && now - emptySince >= tuning.idleExitMs) {
        outcome = "idle";
        break;
      }
      // Registrations are re-read every poll interval; each agent is looked at when it is due.
      let nextAt = now + tuning.pollMs;
      for (const w of watches.values()) {
        if (!w.busy && w.dueAt <= now) look(w, now);
        if (!w.busy) nextAt = Math.min(nextAt, w.dueAt);
      }
      sleepingUntil = Math.max(nextAt, now + 1);
      await rouse.sleep(sleepingUntil - now);
      sleepingUntil = Number.POSITIVE_INFINITY;
    }
  } finally {
    rouse.dispose();
    await unlisten?.().catch(() => undefined);
    await Promise.allSettled([...inFlight]);
    await Promise.all([...watches.values()].map((w) => forget(w, "watcher stopping", false)));
  }
  return outcome;
};
