// Records this worker in the store and renews the record, so CLIs can tell whether any worker is running
// (run-automation-job-cli warns when none is). Also relays PostgreSQL NOTIFY hints to the other services and
// tells them (ctx.hints) whether they may rely on them.

import { WORKER_SEEN_WINDOW_MS } from "../domain/automation/manual-run.ts";
import { errorText } from "../errors.ts";
import { AUTOMATION_CHANNEL, WEBHOOK_CHANNEL } from "../store/port.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

/**
 * A third of the window in which a worker counts as running, so two renewals may fail in a row; no shorter, since on
 * an idle PostgreSQL host this renewal is most of what the worker costs the server.
 */
const RENEW_MS = WORKER_SEEN_WINDOW_MS / 3;

export const presenceService = (ctx: WorkerContext): WorkerService => {
  let timer: ReturnType<typeof setInterval> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  const record = () => {
    const now = ctx.deps.now();
    return ctx.store.write((tx) =>
      tx.automation.upsertWorker({
        id: ctx.workerId,
        host: ctx.deps.host,
        url: ctx.localUrl(),
        startedAt: now,
        lastSeenAt: now,
        stoppedAt: null,
      }),
    );
  };
  /**
   * NOTIFY hints end the services' sleeps; each subscription also hints on every (re)subscribe, so a listener that
   * reconnected looks at once. Only with both channels heard may idle services sleep long (work-hints.ts).
   */
  const subscribe = async (): Promise<void> => {
    const listen = ctx.store.listen?.bind(ctx.store);
    if (!listen) return;
    const offs = await Promise.allSettled([
      listen(AUTOMATION_CHANNEL, () => {
        ctx.nudge.scheduler.notify();
        ctx.nudge.executor.notify();
      }),
      listen(WEBHOOK_CHANNEL, () => ctx.nudge.webhooks?.notify()),
    ]);
    const held = offs.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    unlisten = async () => {
      await Promise.all(held.map((off) => off()));
    };
    const failed = offs.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
    if (ctx.hints) ctx.hints.live = true;
  };
  const stop = async () => {
    if (ctx.hints) ctx.hints.live = false;
    if (timer) clearInterval(timer);
    await unlisten?.().catch(() => undefined);
    unlisten = undefined;
    await ctx.store.write((tx) => tx.automation.touchWorker(ctx.workerId, ctx.deps.now(), true)).catch(() => undefined);
  };
  return {
    name: "presence",
    start: () => {
      void record().catch((error) => ctx.log.log("warn", "could not record this worker", { error: errorText(error) }));
      timer = setInterval(() => {
        void ctx.store.write((tx) => tx.automation.touchWorker(ctx.workerId, ctx.deps.now(), false)).catch(() => undefined);
      }, RENEW_MS);
      void subscribe().catch((error) => ctx.log.log("warn", "LISTEN failed; polling only", { error: errorText(error) }));
    },
    drainOnce: async () => {
      await record();
    },
    drain: stop,
    force: stop,
  };
};
