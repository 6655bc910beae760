// Outbound webhook retention: deletes delivered and failed events (with their attempts) that ended more than
// --webhook-retention-days ago, in bounded batches, at start and then every PRUNE_INTERVAL_MS. Pending events stay.
import { pruneEndedDeliveries } from "../domain/outbound-webhooks/retention.ts";
import { errorText } from "../errors.ts";
import { Nudge } from "./nudge.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

/** Ended events age by days, so an hourly sweep keeps the tables within an hour of the retention period. */
const PRUNE_INTERVAL_MS = 3_600_000;

export const webhookRetentionService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("webhook-retention");
  const { retentionDays } = ctx.options.webhooks;
  const wake = new Nudge();
  let running = true;
  let loopDone: Promise<void> = Promise.resolve();

  /** One round of bounded batches; true when it stopped with more left. */
  const round = async (): Promise<boolean> => {
    const { pruned, more } = await pruneEndedDeliveries(ctx.deps, retentionDays);
    if (pruned > 0) log.log("info", "pruned ended webhook events", { pruned, retention_days: retentionDays, more });
    return more;
  };

  const loop = async (): Promise<void> => {
    while (running) {
      let more = false;
      try {
        more = await round();
      } catch (error) {
        log.log("error", "pruning ended webhook events failed; retrying at the next sweep", { error: errorText(error) });
      }
      // A backlog is worked off a round per poll, leaving the store to other writers between rounds.
      await wake.wait(more ? ctx.options.pollMs : PRUNE_INTERVAL_MS);
    }
  };

  return {
    name: "webhook-retention",
    start: () => {
      loopDone = loop();
    },
    drainOnce: async () => {
      while (await round()) {}
    },
    drain: async () => {
      running = false;
      wake.notify();
      await loopDone;
    },
    force: async () => {
      running = false;
      wake.notify();
      await loopDone;
    },
  };
};
