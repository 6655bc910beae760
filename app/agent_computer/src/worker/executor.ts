// The run executor: claims runs up to the concurrency setting (new runs first, then runs whose lease
// expired on a lost worker), starts each attempt, and answers the SDK's emitEvent calls.
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimAttempts, emitFromAttempt, FencedError } from "../domain/automation/attempts.ts";
import { errorText } from "../errors.ts";
import { JsonTooDeep, MAX_JSON_DEPTH, parseJson } from "../json-depth.ts";
import { mcporterShim } from "./attempt-plan.ts";
import { type RunningAttempt, startAttempt } from "./attempt-run.ts";
import { sleepBefore } from "./work-hints.ts";
import type { WorkerContext } from "./worker-context.ts";
import { json, type RouteHandler, type WorkerService } from "./worker-service.ts";

const MAX_EMIT_BODY = 70_000;

/** The bun and mcporter commands scripts find first on PATH, private to this worker. */
const prepareBinDir = (ctx: WorkerContext): string => {
  const dir = join(ctx.paths.runDir, `worker-${ctx.workerId}`, "bin");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  symlinkSync(ctx.install.bunPath, join(dir, "bun"));
  writeFileSync(join(dir, "mcporter"), mcporterShim(ctx.install));
  chmodSync(join(dir, "mcporter"), 0o755);
  return dir;
};

const emitRoute =
  (ctx: WorkerContext): RouteHandler =>
  async (request) => {
    const log = ctx.log.child("executor");
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    const text = await request.text();
    if (text.length > MAX_EMIT_BODY) return json(413, { error: "too_large", message: "at most 64 KiB of JSON per event" });
    let body: { run_id?: unknown; attempt?: unknown; payload?: unknown };
    try {
      // The payload sits one level inside the request body.
      body = parseJson(text, MAX_JSON_DEPTH + 1) as typeof body;
    } catch (error) {
      if (error instanceof JsonTooDeep)
        return json(400, { error: "too_deep", message: `the payload nests deeper than ${MAX_JSON_DEPTH} levels` });
      return json(400, { error: "bad_request", message: "the body must be JSON" });
    }
    if (typeof body.run_id !== "string" || typeof body.attempt !== "number" || !token || !("payload" in body)) {
      return json(400, { error: "bad_request", message: "run_id, attempt, payload and a bearer token are required" });
    }
    try {
      const receipt = await emitFromAttempt(
        ctx.deps,
        { runId: body.run_id, attempt: body.attempt, leaseToken: token },
        body.payload,
      );
      log.log("info", "event emitted", { run_id: body.run_id, attempt: body.attempt, message_id: receipt.message_id });
      return json(200, receipt);
    } catch (error) {
      if (error instanceof FencedError) {
        log.log("warn", "emit refused: attempt fenced", { run_id: body.run_id, attempt: body.attempt });
        return json(409, { error: "fenced", message: error.message });
      }
      log.log("error", "emit failed", { run_id: body.run_id, error: errorText(error) });
      return json(503, { error: "unavailable", message: "the store is unavailable; nothing was written" });
    }
  };

export const executorService = (ctx: WorkerContext): WorkerService => {
  const running = new Map<string, RunningAttempt>();
  let binDir: string | undefined;
  let accepting = true;
  const log = ctx.log.child("executor");

  /** Claims as many runs as there are free slots; returns how many started. */
  const fill = async (hinted: boolean): Promise<number> => {
    binDir ??= prepareBinDir(ctx);
    const free = ctx.options.concurrency - running.size;
    const claimed = await claimAttempts(ctx.deps, {
      workerId: ctx.workerId,
      leaseMs: ctx.options.leaseSeconds * 1000,
      limit: free,
      hinted,
    });
    for (const attempt of claimed) {
      const handle = startAttempt(ctx, attempt, binDir);
      running.set(attempt.run.id, handle);
      void handle.done.finally(() => {
        running.delete(attempt.run.id);
        ctx.nudge.executor.notify();
      });
    }
    return claimed.length;
  };

  /**
   * How long an idle executor sleeps: with NOTIFY (work-hints.ts) until the next lease may lapse (a lost worker's run
   * to rescue) or the fallback; a lapse already past while every slot is busy waits one poll, as without hints.
   */
  const idleSleep = async (): Promise<number> => {
    if (!ctx.hints?.live) return ctx.options.pollMs;
    const lapse = await ctx.store.read((tx) => tx.automation.nextLeaseLapse());
    // A claim takes a lease strictly before now: look one millisecond after it.
    const due = lapse === null ? null : lapse + 1;
    return due !== null && due <= ctx.deps.now() ? ctx.options.pollMs : sleepBefore(ctx, due);
  };

  const loop = async (): Promise<void> => {
    let hinted = true;
    while (accepting) {
      try {
        const free = ctx.options.concurrency - running.size;
        if (free > 0 && (await fill(hinted)) === free) continue;
      } catch (error) {
        log.log("error", "claiming failed; retrying", { error: errorText(error) });
        await Bun.sleep(1000);
      }
      // A nudge means work was just created or a slot freed: claim without the idle probe.
      const sleep = await idleSleep().catch(() => ctx.options.pollMs);
      hinted = await ctx.nudge.executor.wait(sleep);
    }
  };

  const settle = async (): Promise<void> => {
    while (running.size > 0) await Promise.race([...running.values()].map((r) => r.done));
  };

  return {
    name: "executor",
    routes: { "/attempts/events": { POST: emitRoute(ctx) } },
    start: () => void loop(),
    drainOnce: async () => {
      for (;;) {
        const started = running.size < ctx.options.concurrency ? await fill(true) : 0;
        if (started === 0 && running.size === 0) return;
        if (started === 0) await Promise.race([...running.values()].map((r) => r.done));
      }
    },
    drain: async () => {
      accepting = false;
      ctx.nudge.executor.notify();
      await settle();
    },
    force: async () => {
      accepting = false;
      for (const attempt of running.values()) attempt.kill();
      await settle();
    },
  };
};
