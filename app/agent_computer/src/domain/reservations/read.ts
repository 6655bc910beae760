// Reading reservations: list and check need no token and write nothing.
import type { Deps } from "../deps.ts";
import { type Conflict, conflictsWith, liveIn } from "./conflicts.ts";
import { type ReservationView, reservationView } from "./reservation-view.ts";

/** Conflicts a check lists. */
const SHOWN_CHECKED = 50;

export interface ListInput {
  repoKey: string;
  holder: string | undefined;
  limit: number;
  /** Only those after this one (the page after one that ended there). */
  after?: { createdAt: number; id: string } | undefined;
}

/** Live reservations of the repository, oldest first, and how many more follow the page. */
export const listReservations = async (
  deps: Deps,
  input: ListInput,
): Promise<{ repo: string; reservations: ReservationView[]; more: boolean; following: number }> => {
  const filter = { repoKey: input.repoKey, ...(input.holder ? { holder: input.holder } : {}) };
  const { rows, following } = await deps.store.read(async (tx) => {
    const found = await tx.reservations.live(
      { ...filter, ...(input.after ? { after: input.after } : {}) },
      deps.now(),
      input.limit + 1,
    );
    const last = found.slice(0, input.limit).at(-1);
    const rest = found.length > input.limit && last ? await tx.reservations.countLive({ ...filter, after: last }, deps.now()) : 0;
    return { rows: found, following: rest };
  });
  return {
    repo: input.repoKey,
    reservations: rows.slice(0, input.limit).map(reservationView),
    more: rows.length > input.limit,
    following,
  };
};

/** Other agents' live reservations that the patterns (or paths) overlap: exclusive ones, and shared ones too for an exclusive check. */
export const checkPatterns = async (
  deps: Deps,
  input: { repoKey: string; agentId: string | undefined; patterns: string[]; exclusive: boolean },
): Promise<{ repo: string; clear: boolean; conflicts: Conflict[]; more: number }> => {
  const live = await deps.store.read((tx) => liveIn(tx, input.repoKey, deps.now()));
  const conflicts = conflictsWith(live, input.agentId, input.patterns, input.exclusive);
  const shown = conflicts.slice(0, SHOWN_CHECKED);
  return { repo: input.repoKey, clear: conflicts.length === 0, conflicts: shown, more: conflicts.length - shown.length };
};
