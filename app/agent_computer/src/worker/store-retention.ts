// Store retention: every hour the worker removes what nothing waits on any more and is older than
// AGENT_COMPUTER_RETENTION_DAYS (default 30; 0 turns it off): acknowledged and expired mail and ended runs' output
// tails, as `agent-computer-admin prune --older-than <days> --confirm` does by hand. Ended webhook events are left to
// the webhook retention (outbound-webhook-retention.ts), so --webhook-retention-days alone decides how long they stay.
import { prune, retentionDaysFromEnv } from "../domain/admin/retention-prune.ts";
import { hourlySweepService } from "./hourly-sweep.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

/** Batches of each kind per round, so one round never holds the store for long. */
const BATCHES_PER_ROUND = 20;

export const storeRetentionService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("store-retention");
  const days = retentionDaysFromEnv(ctx.env);
  return hourlySweepService(ctx, {
    name: "store-retention",
    failure: "pruning past the retention failed; retrying at the next sweep",
    enabled: days > 0,
    round: async () => {
      const { pruned, more } = await prune(ctx.deps, days, { maxBatches: BATCHES_PER_ROUND, webhookEvents: false });
      if (pruned.messages + pruned.runTails > 0) {
        log.log("info", "pruned past the retention", {
          messages: pruned.messages,
          run_tails: pruned.runTails,
          retention_days: days,
          more,
        });
      }
      return more;
    },
  });
};
