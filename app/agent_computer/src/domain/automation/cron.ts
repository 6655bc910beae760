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

/** The nicknames croner expands (case-insensitive); @reboot is not one: nothing here sees a reboot. */
export const CRON_NICKNAMES = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"] as const;

export const CRON_FORMS =
  '5 fields "minute hour day-of-month month day-of-week", 6 with a leading seconds field, or a nickname: ' +
  "@hourly, @daily (= @midnight), @weekly, @monthly, @yearly (= @annually)";

/** Each field's name and what it accepts, in the order of a 6-field expression. */
const FIELDS = [
  ["seconds", "0-59"],
  ["minute", "0-59"],
  ["hour", "0-23"],
  ["day-of-month", "1-31, L (last day) or nW (the weekday nearest day n)"],
  ["month", "1-12 or JAN-DEC"],
  ["day-of-week", "0-7 (0 and 7 are Sunday) or SUN-SAT, n#k (the k-th, 1-5) or nL (the last) of the month"],
] as const;

const SYNTAX = "lists (1,5), ranges (1-5) and steps (*/15, 0-30/5) work in every field";

/** A user-facing problem with one flag of a schedule. */
export interface CronProblem {
  flag: "--cron" | "--tz";
  problem: string;
}

const parses = (expr: string, tz: string): boolean => {
  try {
    new Cron(expr, { timezone: tz, mode: "5-or-6-parts", paused: true });
    return true;
  } catch {
    return false;
  }
};

/** Which field croner refuses: each is tried alone, every other field a wildcard. Our words, not the library's. */
const fieldProblem = (fields: string[], tz: string): string => {
  const named = fields.length === 6 ? FIELDS : FIELDS.slice(1);
  for (const [i, value] of fields.entries()) {
    const alone = fields.map((f, j) => (j === i ? f : "*")).join(" ");
    const [name, allowed] = named[i] as (typeof FIELDS)[number];
    if (!parses(alone, tz)) return `the ${name} field ${JSON.stringify(value)} is not valid: it takes ${allowed}; ${SYNTAX}`;
  }
  return `${JSON.stringify(fields.join(" "))} is not a valid schedule; give ${CRON_FORMS}`;
};

/** Checks an expression and a zone; returns the flag at fault and what is wrong, or undefined when both are valid. */
export const cronProblem = (expr: string, tz: string): CronProblem | undefined => {
  const text = expr.trim();
  const fields = text.split(/\s+/);
  if (text.startsWith("@")) {
    if (!(CRON_NICKNAMES as readonly string[]).includes(text.toLowerCase())) {
      return { flag: "--cron", problem: `${JSON.stringify(text)} is not a nickname this scheduler knows; give ${CRON_FORMS}` };
    }
  } else if (fields.length !== 5 && fields.length !== 6) {
    return { flag: "--cron", problem: `has ${fields.length} field(s); give ${CRON_FORMS}` };
  }
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
  } catch {
    return {
      flag: "--tz",
      problem: `unknown IANA time zone ${JSON.stringify(tz)}; use a name like UTC, Europe/Berlin or America/New_York`,
    };
  }
  if (!parses(text, tz)) return { flag: "--cron", problem: fieldProblem(fields, tz) };
  if (!cronOf(text, tz).nextRun(new Date())) {
    return { flag: "--cron", problem: `${JSON.stringify(text)} never fires (no date matches it, e.g. February 30)` };
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
