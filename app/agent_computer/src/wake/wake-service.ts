// The one wake service of a host and store, run by agent-computer-worker ("worker") and by agent-wake-cli --run (the
// light watcher a check-in starts): take the host's watcher lock, wire the watcher, run it. The roles differ only in
// ROLES below: a worker takes over from a light watcher and never exits by itself; a light watcher gives way to
// whoever holds the lock and exits once nothing has been armed for a while.
import { createHerdr, type Herdr } from "../adapters/herdr/client.ts";
import type { Deps } from "../domain/deps.ts";
import { wakeTuningFromEnv } from "../domain/wake/tuning.ts";
import {
  acquireWatcherLock,
  type LockAttempt,
  liveHolder,
  readHolder,
  type WatcherHolder,
  type WatcherRole,
} from "../local/wake-lock.ts";
import {
  ensureWakeDir,
  listRegistrations,
  localWakeRegistry,
  storeLabel,
  type WakeRegistration,
  wakeDirFor,
} from "../local/wake-registrations.ts";
import type { Paths } from "../paths.ts";
import type { WakeLog } from "./agent-watch.ts";
import { runWakeWatcher, type WakeWatcherDeps } from "./watcher.ts";

/** The process's deps (its store opened only at first use: a light watcher that finds one running touches none). */
export interface WakeServiceDeps extends Deps {
  env: Readonly<Record<string, string | undefined>>;
  paths: Paths;
  log: WakeLog;
}

export type WakeServiceResult =
  | { outcome: "stopped" | "idle"; wakeDir: string }
  | { outcome: "already_running"; wakeDir: string; holder: WatcherHolder | undefined };

const TAKEOVER_WAIT_MS = 5_000;
/** How often a light watcher checks that the lock still names it (the worker took over, the state dir went away). */
const LOCK_CHECK_MS = 1_000;

/**
 * How a watcher reaches the Herdr server of an armed agent: the way the agent reached it when it armed. Its herdr
 * calls are cancelled by the watcher itself, never by an exit hook that could cut a daemon's shutdown short.
 */
export const herdrForArming =
  (env: Readonly<Record<string, string | undefined>>) =>
  (registration: WakeRegistration): Herdr =>
    createHerdr({ bin: registration.herdr_bin ?? "herdr", env: { ...env, ...registration.herdr_env }, killWithParent: false });

/** A light watcher holding the lock is asked to stop (SIGTERM) until it lets go or the wait runs out. */
const takeOverFromLight = async (wakeDir: string, signal: AbortSignal): Promise<LockAttempt> => {
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  let attempt = acquireWatcherLock(wakeDir, "worker");
  while (!attempt.acquired && attempt.holder?.role === "light" && Date.now() < deadline && !signal.aborted) {
    try {
      process.kill(attempt.holder.pid, "SIGTERM");
    } catch {
      // already gone
    }
    await Bun.sleep(50);
    attempt = liveHolder(wakeDir)?.role === "light" ? attempt : acquireWatcherLock(wakeDir, "worker");
  }
  return attempt;
};

interface RolePolicy {
  takeLock(wakeDir: string, signal: AbortSignal): LockAttempt | Promise<LockAttempt>;
  exitWhenIdle: boolean;
  /** Stop when the lock file stops naming this process. */
  watchLock: boolean;
}

const ROLES: Record<WatcherRole, RolePolicy> = {
  worker: { takeLock: takeOverFromLight, exitWhenIdle: false, watchLock: false },
  light: { takeLock: (wakeDir) => acquireWatcherLock(wakeDir, "light"), exitWhenIdle: true, watchLock: true },
};

/** Aborts when the caller's signal does, or when the lock file stops naming this process (if the role watches it). */
const lockWatch = (wakeDir: string, outer: AbortSignal, watchLock: boolean, holding: () => boolean) => {
  const abort = new AbortController();
  const stop = () => abort.abort();
  outer.addEventListener("abort", stop);
  if (outer.aborted) stop();
  const timer = watchLock
    ? setInterval(() => {
        if (holding() && readHolder(wakeDir)?.pid !== process.pid) stop();
      }, LOCK_CHECK_MS)
    : undefined;
  return {
    signal: abort.signal,
    dispose: () => {
      clearInterval(timer);
      outer.removeEventListener("abort", stop);
    },
  };
};

/** Runs this host's wake watcher for the store in the given role until stopped, idle, or someone else holds the lock. */
export const runWakeService = async (
  deps: WakeServiceDeps,
  options: { role: WatcherRole; signal: AbortSignal },
): Promise<WakeServiceResult> => {
  const role = ROLES[options.role];
  const wakeDir = ensureWakeDir(wakeDirFor(deps.env, deps.paths), storeLabel(deps.env, deps.paths));
  let lock = await role.takeLock(wakeDir, options.signal);
  if (!lock.acquired) return { outcome: "already_running", wakeDir, holder: lock.holder };
  let holding = true;
  const watch = lockWatch(wakeDir, options.signal, role.watchLock, () => holding);
  let outcome: "stopped" | "idle" = "stopped";
  try {
    const { store } = deps;
    const watcher: WakeWatcherDeps = {
      store,
      host: deps.host,
      newId: deps.newId,
      tuning: wakeTuningFromEnv(deps.env, store.dialect, (message) => deps.log("warn", message)),
      registry: localWakeRegistry(wakeDir),
      herdrFor: herdrForArming(deps.env),
      tmux: { env: deps.env, paths: deps.paths },
      log: deps.log,
      now: deps.now,
    };
    deps.log("info", `${options.role} wake watcher started`, {
      pid: process.pid,
      store: store.dialect,
      poll_ms: watcher.tuning.pollMs,
    });
    for (;;) {
      outcome = await runWakeWatcher(watcher, { signal: watch.signal, exitWhenIdle: role.exitWhenIdle });
      if (outcome !== "idle") break;
      // Release first, then look again: a check-in that armed meanwhile either sees no lock and starts a new
      // watcher, or wrote its registration before this look and is served by this one.
      holding = false;
      lock.release();
      if (listRegistrations(wakeDir).length === 0) break;
      lock = acquireWatcherLock(wakeDir, options.role);
      if (!lock.acquired) break;
      holding = true;
    }
  } finally {
    watch.dispose();
    if (holding && lock.acquired) lock.release();
    deps.log("info", `${options.role} wake watcher exited`, { pid: process.pid, outcome });
  }
  return { outcome, wakeDir };
};
