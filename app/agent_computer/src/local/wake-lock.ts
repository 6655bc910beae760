// One wake watcher per host and store: a process lock (process-lock.ts) in the store's local wake directory whose
// record also names the holder's role (the worker or a light watcher). A holder on another host counts as alive;
// without procfs a holder is judged by whether its pid still runs.
import { hostname } from "node:os";
import { join } from "node:path";
import { acquireProcessLock, inspectProcessLock, type LockHolder, type LockPolicy, readLockHolder } from "./process-lock.ts";

export type WatcherRole = "worker" | "light";

/** The holder as agent-wake-cli and agent-checkin-cli report it. */
export interface WatcherHolder {
  pid: number;
  start_time: string | null;
  role: WatcherRole;
  host: string;
  started_at: number;
}

type WatcherRecord = LockHolder & { role: WatcherRole };

export const watcherLockFile = (wakeDir: string): string => join(wakeDir, "watcher.lock");

const policy = (): LockPolicy => ({ host: hostname(), unverified: "pid", keepStale: false });

const view = (record: WatcherRecord | undefined): WatcherHolder | undefined =>
  record && {
    pid: record.pid,
    start_time: record.start_ticks,
    role: record.role,
    host: record.host,
    started_at: record.acquired_at,
  };

/** Whoever the lock file names, alive or not. */
export const readHolder = (wakeDir: string): WatcherHolder | undefined =>
  view(readLockHolder<{ role: WatcherRole }>(watcherLockFile(wakeDir)));

/** The live holder of the lock, if any (a holder on another host is never judged dead). */
export const liveHolder = (wakeDir: string): WatcherHolder | undefined => {
  const seen = inspectProcessLock<{ role: WatcherRole }>(watcherLockFile(wakeDir), policy());
  return seen.state === "active" || seen.state === "indeterminate" ? view(seen.holder) : undefined;
};

export type LockAttempt = { acquired: true; release(): void } | { acquired: false; holder: WatcherHolder | undefined };

/** Takes the lock for this process unless a live watcher holds it; a dead holder's lock is removed first. */
export const acquireWatcherLock = (wakeDir: string, role: WatcherRole): LockAttempt => {
  const attempt = acquireProcessLock(watcherLockFile(wakeDir), { role }, policy());
  return attempt.acquired ? { acquired: true, release: attempt.release } : { acquired: false, holder: view(attempt.holder) };
};
