// The wake watcher: for every agent armed on this host, poll the store for new mail (NOTIFY on PostgreSQL makes
// it immediate), decide with policy.ts, and submit the fixed prompt through the Herdr adapter. It runs inside
// agent-computer-worker or as the light watcher agent-checkin-cli starts; both hold the host's watcher lock.
import { createHerdr, type Herdr, type HerdrError, isHerdrError } from "../../adapters/herdr/client.ts";
import type { WakeRegistration } from "../../local/wake-registrations.ts";
import type { Store } from "../../store/port.ts";
import { WAKE_CHANNEL } from "../../store/port.ts";
import { type PaneTracker, startPaneTracker } from "./pane-tracker.ts";
import { decideWake, type WakeDecision } from "./policy.ts";
import { buildWakePrompt } from "./prompt.ts";
import { failWake, issueWake } from "./tokens.ts";
import type { WakeTuning } from "./tuning.ts";

export type WakeLog = (level: "debug" | "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;

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

// Internal timings that are not policy: how a status wait is bounded and how failures back off.
const STATUS_CONFIRM_MS = 250;
const STATUS_WAIT_MS = 30_000;
const HERDR_RETRY_MS = 1_000;
const RELIST_MS = 1_000;
const backoffMs = (failures: number): number => Math.min(60_000, 1_000 * 2 ** Math.max(0, failures - 1));

interface AgentWatch {
  reg: WakeRegistration;
  herdr: Herdr;
  tracker: PaneTracker;
  firstSeenAt: number | null;
  deferSince: number | null;
  retryAt: number;
  failures: number;
  /** When this agent next needs a look even if nothing is announced. */
  dueAt: number;
  busy: boolean;
  gone: boolean;
}

const sameArming = (a: WakeRegistration, b: WakeRegistration): boolean =>
  a.session_id === b.session_id && a.pane_id === b.pane_id && a.terminal_id === b.terminal_id;

/**
 * How a watcher reaches the Herdr server of an armed agent: the way the agent reached it when it armed. Its herdr
 * calls are cancelled by the watcher itself, never by an exit hook that could cut a daemon's shutdown short.
 */
export const herdrForArming =
  (env: Readonly<Record<string, string | undefined>>) =>
  (registration: WakeRegistration): Herdr =>
    createHerdr({ env: { ...env, ...registration.herdr_env }, killWithParent: false });

/** Runs until the signal aborts ("stopped") or, for a light watcher, until nothing is armed ("idle"). */
export const runWakeWatcher = async (deps: WakeWatcherDeps, options: WakeWatcherOptions): Promise<"stopped" | "idle"> => {
  const { tuning, log } = deps;
  const watches = new Map<string, AgentWatch>();
  let kick: (() => void) | undefined;
  let kicked = false;
  const notify = () => {
    kicked = true;
    kick?.();
  };
  const sleep = (ms: number) =>
    kicked
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          kick = () => {
            clearTimeout(timer);
            resolve();
          };
        });
  options.signal.addEventListener("abort", notify);
  let sleepingUntil = Number.POSITIVE_INFINITY;
  /** Something changed (a NOTIFY hint, a pane's status): look at every armed agent now. */
  const lookNow = () => {
    for (const w of watches.values()) w.dueAt = 0;
    notify();
  };

  const forget = async (w: AgentWatch, reason: string, disarm: boolean): Promise<void> => {
    if (w.gone) return;
    w.gone = true;
    watches.delete(w.reg.agent_id);
    if (disarm) deps.registry.disarm(w.reg);
    log("info", disarm ? "auto-wake disarmed" : "auto-wake watch ended", { agent_id: w.reg.agent_id, reason });
    await w.tracker.stop();
  };

  const watch = (reg: WakeRegistration): AgentWatch => {
    const herdr = deps.herdrFor(reg);
    const w: AgentWatch = {
      reg,
      herdr,
      firstSeenAt: null,
      deferSince: null,
      retryAt: 0,
      failures: 0,
      dueAt: 0,
      busy: false,
      gone: false,
      tracker: startPaneTracker({
        herdr,
        paneId: reg.pane_id,
        terminalId: reg.terminal_id,
        confirmAfterMs: STATUS_CONFIRM_MS,
        waitTimeoutMs: STATUS_WAIT_MS,
        retryMs: HERDR_RETRY_MS,
        onChange: lookNow,
        onGone: (reason) => void forget(w, reason, true),
        now: deps.now,
      }),
    };
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
        watches.set(reg.agent_id, watch(reg));
        log("info", "watching armed agent", { agent_id: reg.agent_id });
      }
    }
  };

  const promptFailed = async (w: AgentWatch, error: unknown, tokenId?: string): Promise<void> => {
    if (tokenId) await failWake({ store: deps.store, now: deps.now(), newId: deps.newId }, tokenId).catch(() => undefined);
    const kind = isHerdrError(error) ? (error as HerdrError).kind : "internal";
    if (kind === "not_found" || kind === "not_running") return forget(w, "agent_left", true);
    w.failures += 1;
    w.retryAt = deps.now() + backoffMs(w.failures);
    log("warn", "wake not delivered; will retry", { agent_id: w.reg.agent_id, kind, retry_in_ms: w.retryAt - deps.now() });
  };

  const sendWake = async (w: AgentWatch, forced: boolean, verified: boolean): Promise<void> => {
    const outcome = await issueWake(
      { store: deps.store, now: deps.now(), newId: deps.newId },
      { agentName: w.reg.agent_id, sessionId: w.reg.session_id, tuning },
    );
    if (!outcome.issued) {
      if (outcome.reason === "session_ended") return forget(w, outcome.reason, true);
      if (outcome.reason === "hourly_cap") {
        w.retryAt = outcome.retryAt;
        log("warn", "hourly wake cap reached; mail waits", {
          agent_id: w.reg.agent_id,
          until: new Date(outcome.retryAt).toISOString(),
        });
      }
      return;
    }
    try {
      await w.herdr.promptAgent(w.reg.pane_id, buildWakePrompt(w.reg.agent_id, outcome.count, outcome.token));
    } catch (error) {
      return promptFailed(w, error, outcome.tokenId);
    }
    w.deferSince = null;
    w.failures = 0;
    // verified: the pane's status was read just before (the status wait could not vouch for it).
    log("info", "wake sent", { agent_id: w.reg.agent_id, wake_id: outcome.tokenId, messages: outcome.count, forced, verified });
  };

  const decide = async (w: AgentWatch): Promise<{ decision: WakeDecision; verified: boolean }> => {
    const now = deps.now();
    const backlog = await deps.store.read((tx) => tx.wake.backlog(w.reg.session_id, w.reg.agent_id, now));
    w.firstSeenAt = backlog.count > 0 ? (w.firstSeenAt ?? now) : null;
    const view = {
      now,
      host: deps.host,
      backlog,
      firstSeenAt: w.firstSeenAt,
      deferSince: w.deferSince,
      retryAt: w.retryAt,
      tuning,
    };
    const decision = decideWake({ ...view, pane: w.tracker.view() });
    if (decision.kind !== "prompt" || !decision.verify) return { decision, verified: false };
    // The tracker cannot vouch for the status right now: ask Herdr, then decide again.
    const agent = await w.herdr.getAgent(w.reg.pane_id);
    if (!w.tracker.observe(agent)) return { decision: { kind: "nothing" }, verified: true };
    const pane = { status: agent.status, confirmed: true };
    return { decision: decideWake({ ...view, now: deps.now(), pane }), verified: true };
  };

  const tick = async (w: AgentWatch): Promise<void> => {
    let decision: WakeDecision;
    let verified: boolean;
    try {
      ({ decision, verified } = await decide(w));
    } catch (error) {
      if (isHerdrError(error)) return promptFailed(w, error);
      log("warn", "store poll failed", {
        agent_id: w.reg.agent_id,
        error: error instanceof Error ? error.message : String(error),
      });
      w.dueAt = deps.now() + HERDR_RETRY_MS;
      return;
    }
    const now = deps.now();
    w.dueAt = now + tuning.pollMs;
    if (decision.kind === "disarm") return forget(w, decision.reason, true);
    if (decision.kind === "nothing") w.deferSince = null;
    if (decision.kind === "wait") {
      if (decision.reason === "working" || decision.reason === "blocked") w.deferSince ??= now;
      if (decision.until !== null) w.dueAt = Math.min(w.dueAt, decision.until);
    }
    if (decision.kind === "prompt") await sendWake(w, decision.forced, verified);
  };

  const unlisten = await deps.store.listen?.(WAKE_CHANNEL, lookNow).catch((error) => {
    log("warn", "LISTEN failed; polling only", { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  });
  const inFlight = new Set<Promise<void>>();
  let emptySince: number | null = null;
  let outcome: "stopped" | "idle" = "stopped";
  try {
    while (!options.signal.aborted) {
      kicked = false;
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
        if (!w.busy && w.dueAt <= now) {
          w.busy = true;
          w.dueAt = now + tuning.pollMs;
          const running = tick(w).finally(() => {
            w.busy = false;
            inFlight.delete(running);
            // The tick may want a look sooner than the loop planned (a coalescing window ending).
            if (w.dueAt < sleepingUntil) notify();
          });
          inFlight.add(running);
        }
        if (!w.busy) nextAt = Math.min(nextAt, w.dueAt);
      }
      sleepingUntil = Math.max(nextAt, now + 1);
      await sleep(sleepingUntil - now);
      sleepingUntil = Number.POSITIVE_INFINITY;
    }
  } finally {
    options.signal.removeEventListener("abort", notify);
    await unlisten?.().catch(() => undefined);
    await Promise.allSettled([...inFlight]);
    await Promise.all([...watches.values()].map((w) => forget(w, "watcher stopping", false)));
  }
  return outcome;
};
