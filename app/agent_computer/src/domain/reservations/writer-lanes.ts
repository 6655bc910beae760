// Herdr writer lanes' owned scopes are file reservations too, in the same table, so agents outside Herdr see them
// (list, check, reserve) and the git guard honours them. A lane's reservation is exclusive, held by
// `herdr-writer:<lease id>` (no agent id can contain ":"), lasts until the lane's claim stops holding its scopes
// (released, failed_closed, lost), and is written in the same transaction as the claim.
import { AppError } from "../../errors.ts";
import type { StoreTx } from "../../store/port.ts";
import { conflictsWith, liveIn } from "./conflicts.ts";
import { normalisePattern } from "./patterns.ts";
import { writerHolder } from "./writer-lane-holder.ts";

/** A lane's reservation has no time limit of its own: the lane's claim decides when it ends. */
const HELD_UNTIL_RELEASED_MS = 100 * 365 * 86_400_000;

export interface WriterScopes {
  repoKey: string;
  leaseId: string;
  owned: readonly string[];
  reason: string;
  id: string;
  now: number;
}

/** Within the claim's transaction: refuses SCOPE_CONFLICT when an agent's reservation overlaps, else records it. */
export const reserveWriterScopes = async (tx: StoreTx, input: WriterScopes): Promise<void> => {
  if (input.owned.length === 0) return;
  const holder = writerHolder(input.leaseId);
  const patterns = input.owned.map((scope) => normalisePattern(scope, "--own"));
  await tx.reservations.lockRepo(input.repoKey);
  const conflict = conflictsWith(await liveIn(tx, input.repoKey, input.now), holder, patterns, true)[0];
  if (conflict) {
    throw new AppError(
      "SCOPE_CONFLICT",
      `owned scopes overlap ${conflict.patterns.join(", ")}, reserved by ${conflict.holder} until ${conflict.expires_at}`,
      { details: { conflict: "reservation", reservation_id: conflict.id, holder: conflict.holder } },
    );
  }
  await tx.reservations.insert({
    id: input.id,
    repoKey: input.repoKey,
    holder,
    patterns,
    exclusive: true,
    reason: input.reason,
    createdAt: input.now,
    expiresAt: input.now + HELD_UNTIL_RELEASED_MS,
    releasedAt: null,
  });
};
