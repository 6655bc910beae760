// Cron schedules: (expression, IANA time zone) stored, ticks computed in UTC from the SCHEDULED tick, never
// from "now", so a slow scan neither drifts nor skips. Pure functions; croner does the calendar work.
import { Cron } from "croner";

export const MISFIRE_WINDOW_DEFAULT_SECONDS = 3600;
/** Counting missed ticks one by one stops here (each step costs ~0.15 ms); a longer outage reports this many. */
export const MAX_COUNTED_TICKS = 1000;

export const CRON_POLICY =
  "Time zone: ticks are wall-clock times in --tz (IANA, default UTC), computed from the previous scheduled tick. " +
  "DST: a time skipped by spring-forward fires once at the first valid instant after the gap (02:30 becomes 03:00); " +
  "a time repeated by fall-back fires once, at its first occurrence; patterns with a wildcard hour fire every real hour. " +
  "Day-of-month and day-of-week are ORed when both are restricted, as in Vixie cron. " +
  "Misfire policy (after the worker was down or late): the schedule fires ONCE, for the most recent missed tick, if that " +
  "tick is no older than --misfire-window-seconds; every earlier missed tick is skipped and counted (skipped_ticks on " +
  "the firing and in the event data, skipped_count on the schedule; counting stops at 1000 per outage). If even the most recent missed tick is older " +
  "than the window, nothing fires (a 'missed' firing is recorded) and the schedule resumes at the next tick.";

const schedules = new Map<string, Cron>();

const cronOf = (expr: string, tz: string): Cron => {
  const key = `${tz}\u0000${expr}`;
  let cron = schedules.get(key);
  if (!cron) {
    cron = new Cron(expr, { timezone: tz, mode: "5-or-6-parts", paused: true });
    schedules.set(key, cron);
  }
  return cron;
};

/** Checks an expression and a zone; returns a message for the user, or undefined when both are valid. */
export const cronProblem = (expr: string, tz: string): string | undefined => {
  const fields = expr.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) return `must have 5 fields (minute precision) or 6 (leading seconds field); got ${fields}`;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
  } catch {
    return `unknown IANA time zone ${JSON.stringify(tz)}`;
  }
  try {
    if (!cronOf(expr, tz).nextRun(new Date())) return "never fires";
  } catch (error) {
    return (error as Error).message.replace(/^CronPattern: /, "");
  }
  return undefined;
};

/** The first tick strictly after `afterMs`, or null when the expression never fires again. */
export const nextTick = (expr: string, tz: string, afterMs: number): number | null =>
  cronOf(expr, tz).nextRun(new Date(afterMs))?.getTime() ?? null;

export interface CatchUpPlan {
  /** The tick that fires now, or null when the most recent missed tick is older than the window. */
  fireTick: number | null;
  /** Ticks passed over without firing (at least, when the count hit its cap). */
  skipped: number;
  /** The most recent due tick (fired or missed). */
  latestTick: number;
  nextDueAt: number | null;
}

/** What a due schedule does at `now`: the misfire policy as a pure function. */
export const planCatchUp = (s: { expr: string; tz: string; dueAt: number; now: number; windowSeconds: number }): CatchUpPlan => {
  let latest = s.dueAt;
  let due = 1;
  let capped = false;
  for (let tick = nextTick(s.expr, s.tz, s.dueAt); tick !== null && tick <= s.now; tick = nextTick(s.expr, s.tz, tick)) {
    latest = tick;
    due += 1;
    if (due > MAX_COUNTED_TICKS) {
      // Stop walking; the calendar's own backwards search finds the most recent tick in one step.
      const previous = cronOf(s.expr, s.tz)
        .previousRuns(1, new Date(s.now + 1))[0]
        ?.getTime();
      if (previous !== undefined && previous > latest) latest = previous;
      capped = true;
      break;
    }
  }
  const inWindow = s.now - latest <= s.windowSeconds * 1000;
  return {
    fireTick: inWindow ? latest : null,
    skipped: capped ? MAX_COUNTED_TICKS : inWindow ? due - 1 : due,
    latestTick: latest,
    nextDueAt: nextTick(s.expr, s.tz, Math.max(s.now, latest)),
  };
};
