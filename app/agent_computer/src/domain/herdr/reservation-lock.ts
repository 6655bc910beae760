// Reservation locks: one lock per kind of host-local record, taken in a fixed order. A live holder on this host is
// waited for briefly; an indeterminate one (another host's, or one that cannot be judged) never: the caller gets
// RESERVATION_BUSY instead of a takeover on a guess about its lifetime. The files are local/reservation-locks.ts.
import { AppError } from "../../errors.ts";
import { inspectReservationLock, type LockState, tryTakeReservationLock } from "../../local/reservation-locks.ts";

export type { LockState } from "../../local/reservation-locks.ts";

/** Every lock, in the one order locks are taken (so two commands can never wait on each other). */
export const RESERVATION_LOCKS = ["controller", "reviewer", "writer", "adopted", "receipts"] as const;
export type ReservationLock = (typeof RESERVATION_LOCKS)[number];

/** What a lock's state is, with a reason that names no pid, lock id or credential. */
export const inspectLock = (
  locksDir: string,
  name: ReservationLock,
  local: { hostId: string; now: number },
): { state: LockState; reason: string } => inspectReservationLock(locksDir, name, local);

/** A live holder on this host is waited for this long (sections are short); an indeterminate one never. */
const ACTIVE_WAIT_MS = 3_000;

const take = async (locksDir: string, name: ReservationLock, hostId: string): Promise<() => void> => {
  const deadline = Date.now() + ACTIVE_WAIT_MS;
  for (;;) {
    const attempt = tryTakeReservationLock(locksDir, name, hostId);
    if (attempt.taken) return attempt.release;
    if (attempt.state === "indeterminate" || Date.now() >= deadline) {
      throw new AppError("RESERVATION_BUSY", `the ${name} reservation is busy (${attempt.state}: ${attempt.reason}); retry`, {
        hint: "herdr-lease-cli bridge-status shows every reservation lock",
      });
    }
    await Bun.sleep(15 + Math.random() * 35);
  }
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
  const held: Array<() => void> = [];
  try {
    for (const name of RESERVATION_LOCKS.filter((lock) => names.includes(lock))) {
      held.push(await take(locksDir, name, local.hostId));
    }
    return await fn();
  } finally {
    for (const release of held.reverse()) release();
    done();
  }
};
