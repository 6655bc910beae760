// Store retention: every hour the worker removes what nothing waits on any more and is older than
// AGENT_COMPUTER_RETENTION_DAYS (default 30; 0 turns it off): acknowledged and expired mail and ended runs' output
// tails, as `agent-computer-admin prune --older-than <days> --confirm` does by hand. Ended webhook events are left to
// the webhook retention (outbound-webhook-retention.ts), so --webhook-retention-days alone decides how long they stay.
// A backlog is worked off in bounded rounds between the worker's other writes.
import { prune, retentionDaysFromEnv } from "../domain/admin/retention-prune.ts";
import { errorText } from "../errors.ts";
import { Nudge } from "./nudge.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

const PRUNE_INTERVAL_MS = 3_600_000;
/** Batches of each kind per round, so one round never holds the store for long. */
const BATCHES_PER_ROUND = 20;

export const storeRetentionService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("store-retention");
  const days = retentionDaysFromEnv(ctx.env);
  const wake = new Nudge();
  let running = true;
  let loopDone: Promise<void> = Promise.resolve();

  /** One round; true when it stopped with more left. */
  const round = async (): Promise<boolean> => {
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
  };

  const loop = async (): Promise<void> => {
    while (running) {
      let more = false;
      try {
        more = await round();
      } catch (error) {
        log.log("error", "pruning past the retention failed; retrying at the next sweep", { error: errorText(error) });
      }
      await wake.wait(more ? ctx.options.pollMs : PRUNE_INTERVAL_MS);
    }
  };

  const stop = async (): Promise<void> => {
    running = false;
    wake.notify();
    await loopDone;
  };

  return {
    name: "store-retention",
    start: () => {
      if (days > 0) loopDone = loop();
    },
    drainOnce: async () => {
      if (days > 0) while (await round()) {}
    },
    drain: stop,
    force: stop,
  };
};
