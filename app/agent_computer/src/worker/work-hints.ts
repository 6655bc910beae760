// How long an idle worker service sleeps before it looks at the store again. On PostgreSQL with LISTEN working,
// NOTIFY announces new work (presence.ts relays it as nudges, and again after every re-subscribe, so a reconnected
// listener looks at once) and each service knows its own next due time, so it sleeps until that time or the idle
// fallback (--idle-poll-ms), whichever comes first: a lost notification delays work by at most the fallback.
// Without hints (SQLite, a transaction pooler, a LISTEN that failed) every service polls every --poll-ms.
import type { WorkerContext } from "./worker-context.ts";

/** Whether this worker's LISTEN subscriptions are in place (set by presence.ts). */
export interface WorkHints {
  live: boolean;
}

/** The longest an idle service may sleep now: the fallback with hints, else the poll interval. */
export const idleCapMs = (ctx: Pick<WorkerContext, "options" | "hints">): number =>
  ctx.hints?.live ? ctx.options.idlePollMs : ctx.options.pollMs;

/** How long to sleep before a look at work known to fall due at `dueAt` (null: none known), within the cap. */
export const sleepBefore = (ctx: Pick<WorkerContext, "options" | "hints" | "deps">, dueAt: number | null): number => {
  const cap = idleCapMs(ctx);
  return dueAt === null ? cap : Math.max(0, Math.min(cap, dueAt - ctx.deps.now()));
};
