// One clock for every host that shares a PostgreSQL store: ttls, expiries, leases and due times are written by one
// host and judged by another, so each process reads the database server's clock as its own host clock plus an offset
// measured here. SQLite lives on one host, whose clock is the only one, so it has no offset.
import type { Store } from "./port.ts";

/**
 * Above this offset (in either direction) the host's clock is reported as skewed: the worker logs a warning at start
 * and on each re-measure. Times stay right all the same, since every process adds the measured offset; the bound
 * says that the host's time service is not doing its job (any NTP client keeps a host within a few milliseconds).
 */
export const SKEW_BOUND_MS = 1000;

export interface ServerSkew {
  /** Server clock minus this host's clock, in milliseconds: what this process adds to its host time. */
  offset_ms: number;
  /** The fastest sample's round trip: the offset is right to within half of it. */
  round_trip_ms: number;
  bound_ms: number;
  within_bound: boolean;
}

/**
 * The server's clock against this host's (`hostNow`, injectable so a test can run a skewed host), or null on SQLite.
 * Each sample reads clock_timestamp() between two host readings and takes the midpoint; of several samples the
 * fastest counts (its midpoint is the least uncertain). One-shot commands take one, the worker and doctor three.
 */
export const measureServerSkew = async (
  store: Pick<Store, "serverNow">,
  hostNow: () => number = Date.now,
  samples = 3,
): Promise<ServerSkew | null> => {
  if (!store.serverNow) return null;
  let best: ServerSkew | undefined;
  for (let i = 0; i < samples; i++) {
    const sentAt = hostNow();
    const serverAt = await store.serverNow();
    const skew = judgeSkew({ sentAt, answeredAt: hostNow(), serverAt });
    if (!best || skew.round_trip_ms < best.round_trip_ms) best = skew;
  }
  return best as ServerSkew;
};

/** One reading: this host's clock just before and just after the server read its own. */
export interface ClockSample {
  sentAt: number;
  answeredAt: number;
  serverAt: number;
}

/**
 * The offset of one sample, taken at the middle of its round trip, and whether the host is within the bound: only
 * when even the most favourable reading (the offset less half the round trip) is beyond SKEW_BOUND_MS is it not.
 */
export const judgeSkew = ({ sentAt, answeredAt, serverAt }: ClockSample): ServerSkew => {
  const roundTrip = Math.max(0, answeredAt - sentAt);
  const offsetMs = Math.round(serverAt - (sentAt + answeredAt) / 2);
  return {
    offset_ms: offsetMs,
    round_trip_ms: roundTrip,
    bound_ms: SKEW_BOUND_MS,
    within_bound: Math.abs(offsetMs) - roundTrip / 2 <= SKEW_BOUND_MS,
  };
};

/** The clock offset a process adds to its host time; measured once the store is open, re-measured by the worker. */
export interface ClockOffset {
  ms: number;
}
