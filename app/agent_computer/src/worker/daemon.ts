// agent-computer-worker: starts the registered services on one store and one HTTP server, then either
// drains due work once (--once) or runs until a signal. Shutdown has two stages: the first SIGTERM/SIGINT
// stops intake and lets running attempts finish (up to --drain-seconds); a second signal, or the deadline,
// kills what is left and releases those runs so another worker rescues them at once.
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Deps } from "../domain/deps.ts";
import type { Paths } from "../paths.ts";
import type { Store } from "../store/port.ts";
import type { ClockOffset } from "../store/server-clock.ts";
import { listen, localUrlOf } from "./http.ts";
import { installPaths } from "./install-paths.ts";
import { createLogger, type LogFormat, type Logger } from "./log.ts";
import { Nudge } from "./nudge.ts";
import { watchServerClock } from "./server-clock-watch.ts";
import { workerServices } from "./services.ts";
import { announceStart } from "./start-line.ts";
import { openWhenReachable } from "./store-wait.ts";
import type { WorkerContext, WorkerOptions } from "./worker-context.ts";

export interface WorkerSummary {
  worker_id: string;
  url: string;
  mode: "once" | "daemon";
  stopped_by: "once" | "SIGTERM" | "SIGINT";
  forced: boolean;
}

const STALE_ATTEMPT_DIR_MS = 48 * 3600 * 1000;

/** Attempt directories left by a killed worker (each holds an event and a spent fence token). */
const removeStaleAttemptDirs = (paths: Paths): void => {
  const dir = join(paths.runDir, "attempts");
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (Date.now() - statSync(path).mtimeMs > STALE_ATTEMPT_DIR_MS) rmSync(path, { recursive: true, force: true });
  }
};

type StopSignal = "SIGTERM" | "SIGINT";

/**
 * One SIGTERM/SIGINT listener kept for the whole run. A listener removed between two waits would let the
 * next signal fall through to the default action, or to execa's exit hook, which re-raises it and kills
 * the worker without draining.
 */
const listenForSignals = () => {
  const pending: StopSignal[] = [];
  let waiter: ((signal: StopSignal) => void) | undefined;
  const deliver = (signal: StopSignal) => {
    if (waiter) {
      const resolve = waiter;
      waiter = undefined;
      resolve(signal);
    } else pending.push(signal);
  };
  const onTerm = () => deliver("SIGTERM");
  const onInt = () => deliver("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  return {
    next: (): Promise<StopSignal> => {
      const queued = pending.shift();
      return queued ? Promise.resolve(queued) : new Promise((resolve) => (waiter = resolve));
    },
    /** Drops a wait nobody awaits any more, so the next signal is queued for the next `next()`. */
    abandonWait: () => {
      waiter = undefined;
    },
    dispose: () => {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
    },
  };
};

interface WorkerInput {
  /** Opens the store; called again while it is unreachable (see store-wait.ts). */
  openStore(): Promise<Store>;
  env: Record<string, string | undefined>;
  paths: Paths;
  options: WorkerOptions;
  /** The process's deps over the store once it is open (the composition root builds them, on a live clock plus offset). */
  depsOver(store: Store, offset?: ClockOffset): Deps;
  newId(prefix: string): string;
  /** The state directory's console token (local/console-token.ts). */
  consoleToken: string;
  /** The Unix user running the worker (the composition root reads it). */
  consoleUser: string;
  /** stderr is the owner's terminal: only then does the start line carry the console link with its token. */
  stderrIsTerminal: boolean;
  /** json: one JSON object per line; text: lines for a person (--log-format; text by default on a terminal). */
  logFormat: LogFormat;
}

export const runWorker = async (input: WorkerInput): Promise<WorkerSummary> => {
  const signals = listenForSignals();
  const log = createLogger(undefined, "worker", input.logFormat);
  const workerId = input.newId("wrk");
  // --once is a one-shot drain (tests, cron): it fails fast instead of waiting for the store.
  const open = input.options.once
    ? input.openStore().then((store) => ({ store }))
    : openWhenReachable(input.openStore, log, signals.next);
  const opened = await open.catch((error: unknown) => {
    signals.dispose();
    throw error;
  });
  if ("stoppedBy" in opened) {
    signals.dispose();
    log.log("info", "worker stopped before it started", { worker_id: workerId, stopped_by: opened.stoppedBy });
    const mode = input.options.once ? "once" : "daemon";
    return { worker_id: workerId, url: "", mode, stopped_by: opened.stoppedBy, forced: false };
  }
  signals.abandonWait();
  try {
    return await serve(input, opened.store, workerId, signals, log);
  } finally {
    await opened.store.close().catch(() => undefined);
  }
};

const serve = async (
  input: WorkerInput,
  store: Store,
  workerId: string,
  signals: ReturnType<typeof listenForSignals>,
  log: Logger,
): Promise<WorkerSummary> => {
  const { options } = input;
  let url = "";
  const clock = await watchServerClock(store, log);
  const ctx: WorkerContext = {
    workerId,
    store,
    options,
    paths: input.paths,
    install: installPaths(),
    env: input.env,
    log,
    deps: input.depsOver(store, clock.offset),
    nudge: { scheduler: new Nudge(), executor: new Nudge(), webhooks: new Nudge() },
    hints: { live: false },
    localUrl: () => url,
    consoleToken: input.consoleToken,
    consoleUser: input.consoleUser,
  };
  removeStaleAttemptDirs(input.paths);
  const services = workerServices.map((create) => create(ctx));
  const server = listen(ctx, services);
  url = localUrlOf(server, options.host);
  announceStart(log, {
    workerId: ctx.workerId,
    url,
    consoleToken: input.consoleToken,
    stderrIsTerminal: input.stderrIsTerminal,
    store: store.dialect,
    clockOffsetMs: clock.first?.offset_ms ?? null,
    once: options.once,
    concurrency: options.concurrency,
    skillsDir: options.skillsDir,
  });
  const summary: WorkerSummary = {
    worker_id: ctx.workerId,
    url,
    mode: options.once ? "once" : "daemon",
    stopped_by: "once",
    forced: false,
  };
  const stopAll = async (stage: "drain" | "force") => {
    await Promise.all(services.map((s) => (stage === "drain" ? s.drain() : s.force())));
  };
  try {
    if (options.once) {
      const interrupted = signals.next();
      const drained = (async () => {
        for (const service of services) await service.drainOnce?.();
      })();
      const first = await Promise.race([drained.then(() => undefined), interrupted]);
      if (first) {
        summary.stopped_by = first;
        summary.forced = true;
        await stopAll("force");
      } else await stopAll("drain");
    } else {
      for (const service of services) service.start();
      summary.stopped_by = await signals.next();
      log.log("info", "draining: no new work; running attempts may finish (signal again to stop now)", {
        signal: summary.stopped_by,
      });
      const deadline = Bun.sleep(options.drainSeconds * 1000).then(() => "deadline" as const);
      const outcome = await Promise.race([stopAll("drain").then(() => "drained" as const), signals.next(), deadline]);
      if (outcome !== "drained") {
        summary.forced = true;
        log.log("warn", "forcing shutdown: killing running attempts and releasing their runs", { because: outcome });
        await stopAll("force");
      }
    }
  } finally {
    signals.dispose();
    clock.stop();
    server.stop(true);
    log.log("info", "worker stopped", { worker_id: ctx.workerId, stopped_by: summary.stopped_by, forced: summary.forced });
  }
  return summary;
};
