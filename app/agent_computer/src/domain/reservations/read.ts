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
}

export const listReservations = async (
  deps: Deps,
  input: ListInput,
): Promise<{ repo: string; reservations: ReservationView[]; more: boolean }> => {
  const rows = await deps.store.read((tx) =>
    tx.reservations.live(
      { repoKey: input.repoKey, ...(input.holder ? { holder: input.holder } : {}) },
      deps.now(),
      input.limit + 1,
    ),
  );
  return { repo: input.repoKey, reservations: rows.slice(0, input.limit).map(reservationView), more: rows.length > input.limit };
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
