// The wake watcher's loop: keep one AgentWatch per agent armed on this host, look at each when it is due (new mail
// announced by NOTIFY on PostgreSQL, a pane's status change, or the poll interval), and let agent-watch.ts decide
// and deliver. wake-service.ts runs it, holding the host's watcher lock, inside the worker or as the light watcher.
import type { Herdr } from "../adapters/herdr/client.ts";
import type { Deps } from "../domain/deps.ts";
import { failWake, issueWake } from "../domain/wake/tokens.ts";
import type { WakeTuning } from "../domain/wake/tuning.ts";
import type { WakeRegistration } from "../local/wake-registrations.ts";
import { WAKE_CHANNEL } from "../store/port.ts";
import { type AgentOutcome, type AgentWakeDeps, lookAtAgent, type WakeLog } from "./agent-watch.ts";
import { createWatchSet, type WakeRegistry, type Watched, type WatchSetDeps } from "./watch-set.ts";

export interface WakeWatcherDeps extends Pick<Deps, "store" | "host" | "newId" | "now"> {
  tuning: WakeTuning;
  registry: WakeRegistry;
  herdrFor(registration: WakeRegistration): Herdr;
  tmux?: WatchSetDeps["tmux"];
  log: WakeLog;
}

export interface WakeWatcherOptions {
  signal: AbortSignal;
  /** Light watcher: return "idle" once no agent has been armed for tuning.idleExitMs. The worker never does. */
  exitWhenIdle: boolean;
}

/** The per-agent deps over the store: one read for the backlog, tokens.ts for issuing and failing a wake. */
export const agentWakeDeps = (deps: WakeWatcherDeps): AgentWakeDeps => {
  return {
    host: deps.host,
    tuning: deps.tuning,
    log: deps.log,
    now: deps.now,
    backlog: (reg, now) => deps.store.read((tx) => tx.wake.backlog(reg.session_id, reg.agent_id, now)),
    issue: (reg) => issueWake(deps, { agentId: reg.agent_id, sessionId: reg.session_id, tuning: deps.tuning }),
    fail: (tokenId) => failWake(deps, tokenId),
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

/** Runs until the signal aborts ("stopped") or, for a light watcher, until nothing is armed ("idle"). */
export const runWakeWatcher = async (deps: WakeWatcherDeps, options: WakeWatcherOptions): Promise<"stopped" | "idle"> => {
  const { tuning, log } = deps;
  /** Whether every delivery is announced (LISTEN in place), so a quiet agent need not be polled often. */
  let listening = false;
  const perAgent: AgentWakeDeps = {
    ...agentWakeDeps(deps),
    quietPollMs: () => (listening ? tuning.quietPollMs : tuning.pollMs),
  };
  const rouse = rousableSleep(options.signal);
  let sleepingUntil = Number.POSITIVE_INFINITY;
  /** Something changed (a NOTIFY hint, a pane's status): look at every armed agent now. */
  const lookNow = () => {
    for (const w of watches.all()) {
      w.dueAt = 0;
      // A look in flight would overwrite this with its own plan (for a quiet agent, tuning.quietPollMs away).
      if (w.busy) w.changedDuringLook = true;
    }
    rouse.kick();
  };
  const watches = createWatchSet(deps, lookNow);

  const inFlight = new Set<Promise<void>>();
  /** Starts a look at one agent in the background; the loop carries on with the others. */
  const look = (w: Watched, now: number): void => {
    w.busy = true;
    w.changedDuringLook = false;
    w.dueAt = now + tuning.pollMs;
    const running = lookAtAgent(perAgent, w)
      .then((outcome: AgentOutcome) => (outcome.kind === "disarm" ? watches.forget(w, outcome.reason, true) : undefined))
      .finally(() => {
        w.busy = false;
        if (w.changedDuringLook) w.dueAt = 0;
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
  listening = unlisten !== undefined;
  let emptySince: number | null = null;
  let outcome: "stopped" | "idle" = "stopped";
  try {
    while (!options.signal.aborted) {
      rouse.awake();
      await watches.sync();
      const now = deps.now();
      emptySince = watches.size() === 0 ? (emptySince ?? now) : null;
      if (options.exitWhenIdle && emptySince !== null && now - emptySince >= tuning.idleExitMs) {
        outcome = "idle";
        break;
      }
      // Registrations are re-read every poll interval; each agent is looked at when it is due.
      let nextAt = now + tuning.pollMs;
      for (const w of watches.all()) {
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
    await watches.stopAll();
  }
  return outcome;
};
