// One wake watcher per host and store: a lock file in the store's local wake directory naming the holder's pid,
// its process start time (so a reused pid is not mistaken for it) and its role (the worker or a light watcher).
import { linkSync, mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { type PidStatus, probePid } from "../adapters/local-host.ts";

export type WatcherRole = "worker" | "light";

export interface WatcherHolder {
  pid: number;
  start_time: string | null;
  role: WatcherRole;
  host: string;
  started_at: number;
}

const TAKEOVER_STALE_MS = 10_000;

export const watcherLockFile = (wakeDir: string): string => join(wakeDir, "watcher.lock");

export const readHolder = (wakeDir: string): WatcherHolder | undefined => {
  try {
    const holder = JSON.parse(readFileSync(watcherLockFile(wakeDir), "utf8")) as WatcherHolder;
    return typeof holder.pid === "number" ? holder : undefined;
  } catch {
    return undefined;
  }
};

/** Alive: the pid runs and started when the holder did. A lock from another host is never judged dead. */
export const holderIsLive = (holder: WatcherHolder, probe: (pid: number) => PidStatus = probePid): boolean => {
  if (holder.host !== hostname()) return true;
  const status = probe(holder.pid);
  return status.exists && (holder.start_time === null || status.startTime === null || status.startTime === holder.start_time);
};

/** The live holder of the lock, if any. */
export const liveHolder = (wakeDir: string): WatcherHolder | undefined => {
  const holder = readHolder(wakeDir);
  return holder && holderIsLive(holder) ? holder : undefined;
};

/** Removes a dead holder's lock under a short mutex, so two processes cannot both judge and remove it. */
const removeIfStale = (wakeDir: string): void => {
  const mutex = `${watcherLockFile(wakeDir)}.takeover`;
  try {
    mkdirSync(mutex, { mode: 0o700 });
  } catch {
    // Someone else is taking over; a mutex left by a crash is cleared once it is old.
    try {
      if (Date.now() - statSync(mutex).mtimeMs > TAKEOVER_STALE_MS) rmdirSync(mutex);
    } catch {
      // gone already
    }
    Bun.sleepSync(10);
    return;
  }
  try {
    const holder = readHolder(wakeDir);
    if (!holder || !holderIsLive(holder)) rmSync(watcherLockFile(wakeDir), { force: true });
  } finally {
    rmdirSync(mutex);
  }
};

export type LockAttempt = { acquired: true; release(): void } | { acquired: false; holder: WatcherHolder | undefined };

/** Takes the lock for this process; the file appears complete or not at all (written aside, then hard-linked). */
export const acquireWatcherLock = (wakeDir: string, role: WatcherRole): LockAttempt => {
  const file = watcherLockFile(wakeDir);
  const me: WatcherHolder = {
    pid: process.pid,
    start_time: probePid(process.pid).startTime,
    role,
    host: hostname(),
    started_at: Date.now(),
  };
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(me)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        linkSync(temp, file);
        return { acquired: true, release: () => releaseWatcherLock(wakeDir) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readHolder(wakeDir);
      if (holder && holderIsLive(holder)) return { acquired: false, holder };
      removeIfStale(wakeDir);
    }
    return { acquired: false, holder: readHolder(wakeDir) };
  } finally {
    rmSync(temp, { force: true });
  }
};

/** Removes the lock only if this process holds it. */
export const releaseWatcherLock = (wakeDir: string): void => {
  if (readHolder(wakeDir)?.pid === process.pid) rmSync(watcherLockFile(wakeDir), { force: true });
};
