// The worker's wake watcher: the same watcher as the light one (domain/wake/watcher.ts), holding the same
// per-host, per-store lock. A light watcher started by a check-in before the worker came up is asked to stop
// (SIGTERM) and the worker takes over; if another worker holds the lock, this one leaves waking to it.
import { hostname } from "node:os";
import { wakeTuningFromEnv } from "../domain/wake/tuning.ts";
import { herdrForArming, runWakeWatcher } from "../domain/wake/watcher.ts";
import { acquireWatcherLock, type LockAttempt, liveHolder } from "../local/wake-lock.ts";
import { ensureWakeDir, localWakeRegistry, storeLabel, wakeDirFor } from "../local/wake-registrations.ts";
import type { WorkerContext } from "./context.ts";
import { errorText } from "./log.ts";
import type { WorkerService } from "./service.ts";

const TAKEOVER_WAIT_MS = 5_000;

const takeLock = async (wakeDir: string, signal: AbortSignal): Promise<LockAttempt> => {
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

export const wakeService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("wake");
  const abort = new AbortController();
  let done: Promise<void> = Promise.resolve();

  const run = async (): Promise<void> => {
    const wakeDir = ensureWakeDir(wakeDirFor(ctx.env, ctx.paths), storeLabel(ctx.env, ctx.paths));
    const lock = await takeLock(wakeDir, abort.signal);
    if (!lock.acquired) {
      if (!abort.signal.aborted) log.log("info", "another watcher serves this host and store", { holder_pid: lock.holder?.pid });
      return;
    }
    try {
      await runWakeWatcher(
        {
          store: ctx.store,
          host: hostname(),
          newId: (prefix) => ctx.deps().newId(prefix),
          tuning: wakeTuningFromEnv(ctx.env, ctx.store.dialect, (message) => log.log("warn", message)),
          registry: localWakeRegistry(wakeDir),
          herdrFor: herdrForArming(ctx.env),
          log: (level, msg, fields) => log.log(level, msg, fields),
          now: () => Date.now(),
        },
        { signal: abort.signal, exitWhenIdle: false },
      );
    } finally {
      lock.release();
    }
  };

  const stop = async () => {
    abort.abort();
    await done;
  };
  return {
    name: "wake",
    start: () => {
      done = run().catch((error) => log.log("error", "wake watcher stopped", { error: errorText(error) }));
    },
    drain: stop,
    force: stop,
  };
};
