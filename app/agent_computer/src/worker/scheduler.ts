// The scheduler: sleeps until the earliest due checkback or cron tick (at most one poll interval, since other
// processes add triggers; on PostgreSQL with LISTEN, their NOTIFY ends the sleep and the cap is the idle fallback,
// work-hints.ts), consumes what is due in one transaction and wakes the executor at once.
import { consumeDueTriggers, nextDueAt } from "../domain/automation/due-triggers.ts";
import { errorText } from "../errors.ts";
import { sleepBefore } from "./work-hints.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

const BATCH = 100;

export const schedulerService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("scheduler");
  let running = true;
  let loopDone: Promise<void> = Promise.resolve();

  /** The earliest due time seen by the last look; when the timer for it fires, consume without looking again. */
  let knownDue: number | null = null;

  /** Consumes everything due now; returns how long to sleep before looking again. */
  const tick = async (): Promise<number> => {
    if (knownDue === null || knownDue > ctx.deps.now()) {
      knownDue = await nextDueAt(ctx.deps);
      const wait = sleepBefore(ctx, knownDue);
      if (wait > 0) return wait;
    }
    knownDue = null;
    const scan = await consumeDueTriggers(ctx.deps, BATCH);
    const runs = scan.fired.filter((f) => f.result.outcome === "run").length;
    if (runs > 0) ctx.nudge.executor.notify();
    if (scan.fired.length > 0) log.log("info", "triggers fired", { fired: scan.fired.length, runs });
    return scan.more ? 0 : 1;
  };

  const loop = async (): Promise<void> => {
    while (running) {
      let wait: number;
      try {
        wait = await tick();
      } catch (error) {
        log.log("error", "scan failed; retrying", { error: errorText(error) });
        wait = 1000;
      }
      if (running) await ctx.nudge.scheduler.wait(wait);
    }
  };

  return {
    name: "scheduler",
    start: () => {
      loopDone = loop();
    },
    drainOnce: async () => {
      while ((await consumeDueTriggers(ctx.deps, BATCH)).more) {
        // A full batch: more may be due.
      }
    },
    drain: async () => {
      running = false;
      ctx.nudge.scheduler.notify();
      await loopDone;
    },
    force: async () => {
      running = false;
      ctx.nudge.scheduler.notify();
    },
  };
};
