// How long the store keeps what nothing waits on any more: acknowledged and expired mail, ended runs' output tails
// and ended outbound webhook events. agent-computer-admin prune applies it on demand; the worker applies it on its
// own every hour. Never pruned: a message with a pending delivery, a queued or running run, a pending webhook
// event, and anything not yet past the cut-off.
import { AppError } from "../../errors.ts";
import type { PruneCounts } from "../../store/port.ts";
import type { Deps } from "../deps.ts";

export const DEFAULT_RETENTION_DAYS = 30;
export const MAX_RETENTION_DAYS = 36_500;
export const RETENTION_ENV = "AGENT_COMPUTER_RETENTION_DAYS";
const DAY_MS = 86_400_000;

/** Rows changed per transaction, so a large backlog never holds the write lock long. */
export const RETENTION_BATCH = 500;

/**
 * The worker's retention in days from AGENT_COMPUTER_RETENTION_DAYS: unset or empty is the default, 0 turns the
 * worker's pruning off, anything else must be a whole number of days.
 */
export const retentionDaysFromEnv = (env: Readonly<Record<string, string | undefined>>): number => {
  const raw = env[RETENTION_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_RETENTION_DAYS;
  const days = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || days > MAX_RETENTION_DAYS) {
    throw new AppError(
      "CONFIG_INVALID",
      `${RETENTION_ENV} must be a whole number of days from 0 (off) to ${MAX_RETENTION_DAYS} (got ${JSON.stringify(raw.slice(0, 40))})`,
      {
        hint: `unset it for the default of ${DEFAULT_RETENTION_DAYS} days`,
        details: { variable: RETENTION_ENV },
      },
    );
  }
  return days;
};

export const cutoffOf = (now: number, olderThanDays: number): number => now - olderThanDays * DAY_MS;

/** What a prune with this retention would remove now. Reads only. */
export const previewPrune = (deps: Deps, olderThanDays: number): Promise<PruneCounts> =>
  deps.store.read((tx) => tx.admin.pruneCounts(cutoffOf(deps.now(), olderThanDays)));

export interface PruneOutcome {
  pruned: PruneCounts;
  /** True when it stopped at `maxBatches` with more left (the worker's rounds); a one-off prune runs to the end. */
  more: boolean;
}

/**
 * Removes what is past the retention, in batches of one transaction each: messages, then run tails, then webhook
 * events (the same deletion the webhook retention makes; webhookEvents false leaves them to it, for the worker, whose
 * --webhook-retention-days keeps them). maxBatches bounds each kind's batches.
 */
export const prune = async (
  deps: Deps,
  olderThanDays: number,
  {
    batch = RETENTION_BATCH,
    maxBatches = Number.POSITIVE_INFINITY,
    webhookEvents = true,
  }: { batch?: number; maxBatches?: number; webhookEvents?: boolean } = {},
): Promise<PruneOutcome> => {
  const before = cutoffOf(deps.now(), olderThanDays);
  let more = false;
  const drain = async (step: (before: number) => Promise<number>): Promise<number> => {
    let total = 0;
    for (let round = 0; round < maxBatches; round++) {
      const done = await step(before);
      total += done;
      if (done < batch) return total;
    }
    more = true;
    return total;
  };
  const messages = await drain((b) => deps.store.write((tx) => tx.admin.pruneMessages(b, batch)));
  const runTails = await drain((b) => deps.store.write((tx) => tx.admin.pruneRunTails(b, batch)));
  const events = webhookEvents ? await drain((b) => deps.store.write((tx) => tx.webhooks.pruneEndedEvents(b, batch))) : 0;
  return { pruned: { messages, runTails, webhookEvents: events }, more };
};
