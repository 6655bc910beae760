// The one lock of host-local state: a file naming its holder by process identity (pid, process start time and boot
// id), created by hard link so it appears complete or not at all. A holder whose pid is gone, whose pid now belongs
// to a process that started later, or that ran before the last reboot is stale and is taken over; a holder of
// another host (a state dir shared between machines) is indeterminate and is never taken over on a guess.
import { mkdirSync, renameSync, rmdirSync, rmSync, statSync } from "node:fs";
import { probePid } from "../adapters/local-host.ts";
import { currentBootId } from "../adapters/process-ancestry.ts";
import { createPrivateFileExclusive, readTextIfPresent } from "./private-files.ts";

/** What every lock file records about its holder (callers add fields of their own). */
export interface LockHolder {
  /** Random per acquisition: only the acquisition that wrote it releases it. */
  lock_id: string;
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where procfs is missing. */
  start_ticks: string | null;
  boot_id: string | null;
  /** The caller's name for this host (host name or machine id): a holder of another host is never judged. */
  host: string;
  acquired_at: number;
}

export type LockState = "absent" | "active" | "stale" | "indeterminate";

export interface LockView<E> {
  state: LockState;
  /** Why, in words that name no pid, lock id or credential. */
  reason: string;
  /** The holder's record; undefined when absent or unreadable. */
  holder: (LockHolder & E) | undefined;
}

export interface LockPolicy {
  /** This host as the lock's callers name it (compared with LockHolder.host). */
  host: string;
  /**
   * A holder whose start time or boot id is unknown (no procfs on either side): "indeterminate" never takes it
   * over; "pid" judges it by whether its pid still runs.
   */
  unverified: "indeterminate" | "pid";
  /** A stale lock is moved aside to <file>.stale.<uuid> for inspection instead of being deleted. */
  keepStale: boolean;
}

/** An unreadable lock file is presumed abandoned after this long (a lock is never written in place). */
const UNREADABLE_STALE_MS = 30_000;
/** A takeover mutex left by a crash is cleared after this long (a takeover holds it for microseconds). */
const TAKEOVER_STALE_MS = 10_000;
const ACQUIRE_ROUNDS = 20;

type LockFile<E> = { kind: "absent" } | { kind: "unreadable"; ageMs: number } | { kind: "held"; holder: LockHolder & E };

const read = <E>(file: string, now: number): LockFile<E> => {
  let modified: number;
  try {
    modified = statSync(file).mtimeMs;
  } catch {
    return { kind: "absent" };
  }
  try {
    const text = readTextIfPresent(file);
    if (text === undefined) return { kind: "absent" };
    const holder = JSON.parse(text) as LockHolder & E;
    if (typeof holder.pid === "number" && typeof holder.host === "string" && typeof holder.lock_id === "string") {
      return { kind: "held", holder };
    }
  } catch {
    // not a lock record: judged by age below
  }
  return { kind: "unreadable", ageMs: now - modified };
};

/** Whoever the lock file names, alive or not (undefined when absent or unreadable). */
export const readLockHolder = <E = object>(file: string): (LockHolder & E) | undefined => {
  const record = read<E>(file, Date.now());
  return record.kind === "held" ? record.holder : undefined;
};

/** Judges a holder record by process identity (no file access). */
export const judgeHolder = (holder: LockHolder, policy: LockPolicy): { state: LockState; reason: string } => {
  if (holder.host !== policy.host) return { state: "indeterminate", reason: "held from another host; never taken over" };
  const bootId = currentBootId();
  // A hand-made or foreign record may lack the fields altogether: missing counts as unknown.
  const heldBoot = holder.boot_id ?? null;
  const heldStart = holder.start_ticks ?? null;
  const verifiable = bootId !== null && heldBoot !== null && heldStart !== null;
  if (!verifiable && policy.unverified === "indeterminate") {
    return { state: "indeterminate", reason: "holder cannot be verified without boot id and process start time" };
  }
  if (bootId !== null && heldBoot !== null && heldBoot !== bootId) {
    return { state: "stale", reason: "the host rebooted since the lock was taken" };
  }
  const status = probePid(holder.pid);
  if (!status.exists) return { state: "stale", reason: "the holding process is gone" };
  if (heldStart !== null && status.startTime !== null && status.startTime !== heldStart) {
    return { state: "stale", reason: "the holder's process id now belongs to another process" };
  }
  return { state: "active", reason: "held by a running process on this host" };
};

/** The lock's state and holder. */
export const inspectProcessLock = <E = object>(file: string, policy: LockPolicy, now: number = Date.now()): LockView<E> => {
  const record = read<E>(file, now);
  if (record.kind === "absent") return { state: "absent", reason: "not held", holder: undefined };
  if (record.kind === "unreadable") {
    return record.ageMs > UNREADABLE_STALE_MS
      ? { state: "stale", reason: "no readable lock record for more than 30 s", holder: undefined }
      : { state: "active", reason: "the lock record is unreadable (stale after 30 s)", holder: undefined };
  }
  return { ...judgeHolder(record.holder, policy), holder: record.holder };
};

/** Clears a stale lock under a short mutex, so that two takers cannot both judge it and one remove the other's. */
const clearStale = (file: string, policy: LockPolicy): void => {
  const mutex = `${file}.takeover`;
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
    if (inspectProcessLock(file, policy).state !== "stale") return;
    if (policy.keepStale) renameSync(file, `${file}.stale.${crypto.randomUUID()}`);
    else rmSync(file, { recursive: true, force: true });
  } finally {
    rmdirSync(mutex);
  }
};

export type LockAttempt<E> = { acquired: true; holder: LockHolder & E; release(): void } | ({ acquired: false } & LockView<E>);

/** This process as a lock holder. */
const self = (host: string): LockHolder => ({
  lock_id: crypto.randomUUID(),
  pid: process.pid,
  start_ticks: probePid(process.pid).startTime,
  boot_id: currentBootId(),
  host,
  acquired_at: Date.now(),
});

/**
 * Takes the lock for this process unless an active or indeterminate holder has it; a stale one is cleared first.
 * Never waits for a holder: callers decide whether and how long to retry. The lock file's directory must exist.
 */
export const acquireProcessLock = <E extends object>(file: string, extra: E, policy: LockPolicy): LockAttempt<E> => {
  const holder: LockHolder & E = { ...extra, ...self(policy.host) };
  const content = `${JSON.stringify(holder)}\n`;
  let seen: LockView<E> = { state: "absent", reason: "not held", holder: undefined };
  for (let round = 0; round < ACQUIRE_ROUNDS; round++) {
    if (createPrivateFileExclusive(file, content)) {
      return { acquired: true, holder, release: () => releaseProcessLock(file, holder.lock_id) };
    }
    seen = inspectProcessLock<E>(file, policy);
    if (seen.state === "active" || seen.state === "indeterminate") return { acquired: false, ...seen };
    if (seen.state === "stale") clearStale(file, policy);
  }
  return { acquired: false, ...seen };
};

/** Removes the lock only if the acquisition `lockId` still holds it. */
export const releaseProcessLock = (file: string, lockId: string): void => {
  if (readLockHolder(file)?.lock_id === lockId) rmSync(file, { force: true });
};
