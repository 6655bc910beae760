// The files of Herdr's reservation locks: one process lock (process-lock.ts) per named reservation in the locks
// directory. Their rules (which locks exist, their order, how long to wait) live in domain/herdr/reservation-lock.ts.
// A holder that cannot be verified is indeterminate (never taken over); a stale lock is moved aside, not deleted,
// so its remains stay inspectable.
import { join } from "node:path";
import { ensurePrivateDir } from "./private-files.ts";
import { acquireProcessLock, inspectProcessLock, type LockPolicy, type LockState } from "./process-lock.ts";

export type { LockState } from "./process-lock.ts";

const fileOf = (locksDir: string, name: string): string => join(locksDir, `${name}.lock`);

const policy = (hostId: string): LockPolicy => ({ host: hostId, unverified: "indeterminate", keepStale: true });

/** A lock's state, with a reason that names no pid, lock id or credential. */
export const inspectReservationLock = (
  locksDir: string,
  name: string,
  local: { hostId: string; now: number },
): { state: LockState; reason: string } => {
  const { state, reason } = inspectProcessLock(fileOf(locksDir, name), policy(local.hostId), local.now);
  return { state, reason };
};

export type ReservationAttempt = { taken: true; release(): void } | { taken: false; state: LockState; reason: string };

/** Takes the named lock unless it is held (a stale holder is moved aside first); never waits. */
export const tryTakeReservationLock = (locksDir: string, name: string, hostId: string): ReservationAttempt => {
  ensurePrivateDir(locksDir);
  const attempt = acquireProcessLock(fileOf(locksDir, name), {}, policy(hostId));
  return attempt.acquired
    ? { taken: true, release: attempt.release }
    : { taken: false, state: attempt.state, reason: attempt.reason };
};
