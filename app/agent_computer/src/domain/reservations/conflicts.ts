// Which live reservations a set of patterns would overlap: the one rule reserve, check, the git guard and Herdr writer
// lanes share (patterns.ts decides the overlap of two patterns).
import type { ReservationRecord, StoreTx } from "../../store/port.ts";
import { iso } from "../deps.ts";
import { patternsConflict } from "./patterns.ts";

/** Live reservations one repository may hold; a conflict check reads them all. */
export const MAX_LIVE_PER_REPO = 2000;

export interface Conflict {
  holder: string;
  id: string;
  patterns: string[];
  exclusive: boolean;
  expires_at: string;
  /** For the guard: the touched paths this reservation covers. */
  paths?: string[];
}

/** Other agents' live reservations that `patterns` would overlap (any overlap when either side is exclusive). */
export const conflictsWith = (
  live: readonly ReservationRecord[],
  me: string | undefined,
  patterns: readonly string[],
  exclusive: boolean,
): Conflict[] =>
  live
    .filter((r) => r.holder !== me && (r.exclusive || exclusive))
    .map((r) => ({ r, hit: r.patterns.filter((theirs) => patterns.some((mine) => patternsConflict(mine, theirs))) }))
    .filter(({ hit }) => hit.length > 0)
    .map(({ r, hit }) => ({ holder: r.holder, id: r.id, patterns: hit, exclusive: r.exclusive, expires_at: iso(r.expiresAt) }));

export const liveIn = async (tx: StoreTx, repoKey: string, now: number): Promise<ReservationRecord[]> =>
  tx.reservations.live({ repoKey }, now, MAX_LIVE_PER_REPO + 1);
