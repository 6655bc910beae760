// Outbound webhook retention: deletes delivered and failed events (with their attempts) that ended more than
// --webhook-retention-days ago, in bounded batches, at start and then every hour. Pending events stay.
import { pruneEndedDeliveries } from "../domain/outbound-webhooks/retention.ts";
import { hourlySweepService } from "./hourly-sweep.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

export const webhookRetentionService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("webhook-retention");
  const { retentionDays } = ctx.options.webhooks;
  return hourlySweepService(ctx, {
    name: "webhook-retention",
    failure: "pruning ended webhook events failed; retrying at the next sweep",
    round: async () => {
      const { pruned, more } = await pruneEndedDeliveries(ctx.deps, retentionDays);
      if (pruned > 0) log.log("info", "pruned ended webhook events", { pruned, retention_days: retentionDays, more });
      return more;
    },
  });
};
