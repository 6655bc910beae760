// Reservation locks: one mkdir-lock per kind of host-local record, taken in a fixed order, never waited for.
// The owner record carries host id, boot id and process start time, so a crashed holder, a reused pid or a
// reboot is recognised as stale and taken over; a lock of another host (a shared state dir) or one that cannot
// be judged is indeterminate and is never taken over on a guess about its lifetime.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { currentBootId, processIdentity } from "../../adapters/process-ancestry.ts";
import { AppError } from "../../errors.ts";
import { ensurePrivateDir } from "./state-files.ts";

/** Every lock, in the one order locks are taken (so two commands can never wait on each other). */
export const RESERVATION_LOCKS = ["controller", "reviewer", "writer", "adopted", "receipts"] as const;
export type ReservationLock = (typeof RESERVATION_LOCKS)[number];

export type LockState = "absent" | "active" | "stale" | "indeterminate";

export interface LockOwner {
  version: 2;
  lock_id: string;
  pid: number;
  host_id: string;
  acquired_at: number;
  boot_id: string | null;
  start_ticks: string | null;
}

/** A lock directory without an owner record is being created; after this long its creator is presumed dead. */
const OWNERLESS_STALE_MS = 30_000;

const lockDir = (locksDir: string, name: ReservationLock): string => join(locksDir, `${name}.lock`);

const readOwner = (dir: string): LockOwner | undefined => {
  try {
    return JSON.parse(readFileSync(join(dir, "owner.json"), "utf8")) as LockOwner;
  } catch {
    return undefined;
  }
};

/** What a lock's state is, with a reason that names no pid, lock id or credential. */
export const inspectLock = (
  locksDir: string,
  name: ReservationLock,
  local: { hostId: string; now: number },
): { state: LockState; reason: string } => {
  const dir = lockDir(locksDir, name);
  let createdAt: number;
  try {
    createdAt = statSync(dir).mtimeMs;
  } catch {
    return { state: "absent", reason: "not held" };
  }
  const owner = readOwner(dir);
  if (!owner) {
    return local.now - createdAt > OWNERLESS_STALE_MS
      ? { state: "stale", reason: "no owner record for more than 30 s" }
      : { state: "active", reason: "being taken right now" };
  }
  if (owner.host_id !== local.hostId) return { state: "indeterminate", reason: "held from another host; never taken over" };
  const bootId = currentBootId();
  if (!bootId || !owner.boot_id || owner.start_ticks === null) {
    return { state: "indeterminate", reason: "holder cannot be verified without boot id and process start time" };
  }
  if (owner.boot_id !== bootId) return { state: "stale", reason: "the host rebooted since the lock was taken" };
  const holder = processIdentity(owner.pid);
  if (!holder) return { state: "stale", reason: "the holding process is gone" };
  if (holder.startTicks !== owner.start_ticks)
    return { state: "stale", reason: "the holder's process id now belongs to another process" };
  return { state: "active", reason: "held by a running process on this host" };
};

const tryTake = (locksDir: string, name: ReservationLock, hostId: string, now: number): LockOwner | undefined => {
  const dir = lockDir(locksDir, name);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  const self = processIdentity(process.pid);
  const owner: LockOwner = {
    version: 2,
    lock_id: randomUUID(),
    pid: process.pid,
    host_id: hostId,
    acquired_at: now,
    boot_id: self?.bootId ?? null,
    start_ticks: self?.startTicks ?? null,
  };
  writeFileSync(join(dir, "owner.json"), `${JSON.stringify(owner)}\n`, { mode: 0o600, flag: "wx" });
  return owner;
};

/** A live holder on this host is waited for this long (sections are short); an indeterminate one never. */
const ACTIVE_WAIT_MS = 3_000;

const take = async (locksDir: string, name: ReservationLock, hostId: string): Promise<LockOwner> => {
  const deadline = Date.now() + ACTIVE_WAIT_MS;
  for (;;) {
    const taken = tryTake(locksDir, name, hostId, Date.now());
    if (taken) return taken;
    const seen = inspectLock(locksDir, name, { hostId, now: Date.now() });
    if (seen.state === "stale") {
      // Moved aside, not deleted: the remains stay inspectable, and only one taker can win the rename.
      try {
        renameSync(lockDir(locksDir, name), join(locksDir, `${name}.lock.stale.${randomUUID()}`));
      } catch {
        // another process moved it first; the next round decides
      }
      continue;
    }
    if (seen.state === "indeterminate" || Date.now() >= deadline) {
      throw new AppError("RESERVATION_BUSY", `the ${name} reservation is busy (${seen.state}: ${seen.reason}); retry`, {
        hint: "herdr-lease-cli bridge-status shows every reservation lock",
      });
    }
    await Bun.sleep(15 + Math.random() * 35);
  }
};

const release = (locksDir: string, name: ReservationLock, owner: LockOwner): void => {
  const dir = lockDir(locksDir, name);
  if (readOwner(dir)?.lock_id !== owner.lock_id) return;
  rmSync(dir, { recursive: true, force: true });
};

// Sections of one process run one after another (a process never contends with itself for a lock).
const inProcess = new Map<string, Promise<void>>();

/** Runs fn holding the named locks (taken in the fixed order, released in reverse, also on failure). Never nest. */
export const withReservations = async <T>(
  locksDir: string,
  names: readonly ReservationLock[],
  local: { hostId: string },
  fn: () => Promise<T>,
): Promise<T> => {
  const before = inProcess.get(locksDir) ?? Promise.resolve();
  let done = (): void => {};
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  inProcess.set(
    locksDir,
    before.then(() => mine),
  );
  await before;
  const held: Array<[ReservationLock, LockOwner]> = [];
  try {
    ensurePrivateDir(locksDir);
    for (const name of RESERVATION_LOCKS.filter((lock) => names.includes(lock))) {
      held.push([name, await take(locksDir, name, local.hostId)]);
    }
    return await fn();
  } finally {
    for (const [name, owner] of held.reverse()) release(locksDir, name, owner);
    done();
  }
};
