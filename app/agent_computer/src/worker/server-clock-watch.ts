// The worker's clock on PostgreSQL: the server's, as host time plus an offset measured when the store opens and
// again every few minutes (a host's time service may step its clock while the worker runs). An offset above the
// documented bound is logged as a warning each time it is seen: times stay right, but the host's clock is not.

import type { Store } from "../store/port.ts";
import { type ClockOffset, measureServerSkew, type ServerSkew } from "../store/server-clock.ts";
import type { Logger } from "./log.ts";

export const REMEASURE_MS = 5 * 60_000;

export interface ServerClockWatch {
  offset: ClockOffset;
  /** The first measurement, for the start line; null on SQLite. */
  first: ServerSkew | null;
  stop(): void;
}

const report = (log: Logger, skew: ServerSkew): void => {
  if (skew.within_bound) return;
  log.log("warn", "this host's clock is off from the PostgreSQL server's; times are taken from the server", {
    offset_ms: skew.offset_ms,
    bound_ms: skew.bound_ms,
    fix: "run a time service on this host (systemd-timesyncd, chrony or ntpd)",
  });
};

export const watchServerClock = async (
  store: Store,
  log: Logger,
  hostNow: () => number = Date.now,
): Promise<ServerClockWatch> => {
  const offset: ClockOffset = { ms: 0 };
  const first = await measureServerSkew(store, hostNow);
  if (!first) return { offset, first, stop: () => {} };
  offset.ms = first.offset_ms;
  report(log, first);
  const timer = setInterval(() => {
    measureServerSkew(store, hostNow)
      .then((skew) => {
        if (!skew) return;
        offset.ms = skew.offset_ms;
        report(log, skew);
      })
      .catch(() => undefined); // an unreachable store keeps the last offset; the services log their own failures
  }, REMEASURE_MS);
  timer.unref();
  return { offset, first, stop: () => clearInterval(timer) };
};
