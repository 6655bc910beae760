// A service that sweeps the store every hour in bounded rounds: a round returns whether it stopped with more left,
// and a backlog is worked off a round per poll, leaving the store to other writers between rounds. A failed round is
// logged and tried again at the next sweep. The webhook and store retentions are its two users.
import { errorText } from "../errors.ts";
import { Nudge } from "./nudge.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

/** Retained things age by days, so an hourly sweep keeps the tables within an hour of the retention period. */
const SWEEP_INTERVAL_MS = 3_600_000;

export interface HourlySweep {
  name: string;
  /** Logged (with the error) when a round fails. */
  failure: string;
  /** One round of bounded batches; true when it stopped with more left. */
  round(): Promise<boolean>;
  /** False turns the service off (it neither starts nor drains). */
  enabled?: boolean;
}

export const hourlySweepService = (ctx: WorkerContext, sweep: HourlySweep): WorkerService => {
  const log = ctx.log.child(sweep.name);
  const enabled = sweep.enabled ?? true;
  const wake = new Nudge();
  let running = true;
  let loopDone: Promise<void> = Promise.resolve();

  const loop = async (): Promise<void> => {
    while (running) {
      let more = false;
      try {
        more = await sweep.round();
      } catch (error) {
        log.log("error", sweep.failure, { error: errorText(error) });
      }
      await wake.wait(more ? ctx.options.pollMs : SWEEP_INTERVAL_MS);
    }
  };

  const stop = async (): Promise<void> => {
    running = false;
    wake.notify();
    await loopDone;
  };

  return {
    name: sweep.name,
    start: () => {
      if (enabled) loopDone = loop();
    },
    drainOnce: async () => {
      if (enabled) while (await sweep.round()) {}
    },
    drain: stop,
    force: stop,
  };
};
