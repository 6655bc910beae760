// The worker's part in auto-wake: it runs the host's one wake service (wake/wake-service.ts) in the worker role, which
// takes over from a light watcher; if another worker holds the lock, this one leaves waking to it.

import { errorText } from "../errors.ts";
import { runWakeService } from "../wake/wake-service.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

export const wakeService = (ctx: WorkerContext): WorkerService => {
  const log = ctx.log.child("wake");
  const abort = new AbortController();
  let done: Promise<void> = Promise.resolve();

  const run = async (): Promise<void> => {
    const result = await runWakeService(
      { ...ctx.deps, env: ctx.env, paths: ctx.paths, log: (level, msg, fields) => log.log(level, msg, fields) },
      { role: "worker", signal: abort.signal },
    );
    if (result.outcome === "already_running" && !abort.signal.aborted) {
      log.log("info", "another watcher serves this host and store", { holder_pid: result.holder?.pid });
    }
  };

  const stop = async () => {
    abort.abort();
    await done;
  };
  return {
    name: "wake",
    start: () => {
      done = run().catch((error) => log.log("error", "wake watcher stopped", { error: errorText(error) }));
    },
    drain: stop,
    force: stop,
  };
};
