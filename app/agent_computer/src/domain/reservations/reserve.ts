// File reservations: an agent leases path patterns of one repository for a while, exclusive or shared. An exclusive
// reservation conflicts with any other agent's reservation on an overlapping pattern (patterns.ts), a shared one only
// with exclusive ones. Each repository's reservations are decided one at a time (its row in reservation_repos is
// locked after the holder's own row, the one lock order), so of two racing overlapping reservations exactly one wins.
import { AppError } from "../../errors.ts";
import type { ReservationRecord } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { conflictsWith, liveIn, MAX_LIVE_PER_REPO } from "./conflicts.ts";
import { conflictError } from "./refusal.ts";
import { type ReservationView, reservationView } from "./reservation-view.ts";

export interface ReserveInput {
  agentId: string;
  token: string | undefined;
  repoKey: string;
  patterns: string[];
  exclusive: boolean;
  ttlS: number;
  reason: string;
}

export const reserve = (deps: Deps, input: ReserveInput): Promise<ReservationView> =>
  deps.store.write(async (tx) => {
    const now = deps.now();
    await authenticate(tx, input.agentId, input.token, { lock: true });
    await tx.reservations.lockRepo(input.repoKey);
    const live = await liveIn(tx, input.repoKey, now);
    const conflicts = conflictsWith(live, input.agentId, input.patterns, input.exclusive);
    if (conflicts.length > 0) {
      throw conflictError(
        conflicts,
        `not reserved, ${input.exclusive ? "exclusive" : "shared"} ${input.patterns.join(", ")} overlaps`,
        "ask the holder (agent-send-cli), wait until it expires, or reserve other paths; nothing was reserved",
      );
    }
    if (live.length >= MAX_LIVE_PER_REPO) {
      throw new AppError("CONFLICT", `the repository already holds ${MAX_LIVE_PER_REPO} live reservations`, {
        hint: "release some (agent-reserve-cli release) or wait for them to expire",
      });
    }
    const record: ReservationRecord = {
      id: deps.newId("rsv"),
      repoKey: input.repoKey,
      holder: input.agentId,
      patterns: input.patterns,
      exclusive: input.exclusive,
      reason: input.reason,
      createdAt: now,
      expiresAt: now + input.ttlS * 1000,
      releasedAt: null,
    };
    await tx.reservations.insert(record);
    return reservationView(record);
  });
