// How long ended outbound webhook events are kept: delivered and failed events (with their attempts) are history
// for `agent-webhook-cli deliveries`; past the retention period the worker deletes them so the outbox stays small.
// Pending events, claimed or not, are never pruned.
import type { Deps } from "../deps.ts";

export const DEFAULT_WEBHOOK_RETENTION_DAYS = 7;
const DAY_MS = 86_400_000;

/** Events deleted per transaction, so a large backlog never holds the write lock long. */
export const PRUNE_BATCH = 500;
/** Batches per round, so a backlog is worked off over several rounds without starving the worker's other writes. */
export const PRUNE_BATCHES_PER_ROUND = 20;

export interface PruneRound {
  pruned: number;
  /** True when the round stopped at its batch limit with more left to prune. */
  more: boolean;
}

/** Deletes events that ended more than `retentionDays` ago, in batches of `batch` (one transaction each). */
export const pruneEndedDeliveries = async (
  deps: Deps,
  retentionDays: number,
  { batch = PRUNE_BATCH, batches = PRUNE_BATCHES_PER_ROUND }: { batch?: number; batches?: number } = {},
): Promise<PruneRound> => {
  const endedBefore = deps.now() - retentionDays * DAY_MS;
  let pruned = 0;
  for (let round = 0; round < batches; round++) {
    const gone = await deps.store.write((tx) => tx.webhooks.pruneEndedEvents(endedBefore, batch));
    pruned += gone;
    if (gone < batch) return { pruned, more: false };
  }
  return { pruned, more: true };
};
