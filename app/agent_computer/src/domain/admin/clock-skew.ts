// This host's clock against the PostgreSQL server's. Every host sharing the store judges ttls, expiries, leases
// and schedules by its own clock, so two hosts that disagree by more than a few seconds disagree on who is live
// and what has expired. The server's time is read between two readings of ours: it lies within that round trip,
// so half the round trip is the uncertainty of the measured skew.

/** Skew beyond this (after the uncertainty is taken off) is an error: documented in agent-computer-admin doctor. */
export const MAX_CLOCK_SKEW_MS = 2000;

export interface ClockReading {
  /** This host's clock just before and just after the server read its own. */
  sentAt: number;
  receivedAt: number;
  serverAt: number;
}

export interface ClockSkew {
  /** The server's clock minus this host's, in ms (positive: this host is behind). */
  skew_ms: number;
  /** Half the round trip: the true skew lies within skew_ms ± this. */
  uncertainty_ms: number;
  round_trip_ms: number;
  /** True when even the most favourable reading of the measurement is beyond MAX_CLOCK_SKEW_MS. */
  too_far: boolean;
}

export const clockSkew = (r: ClockReading, maxSkewMs = MAX_CLOCK_SKEW_MS): ClockSkew => {
  const roundTrip = Math.max(0, r.receivedAt - r.sentAt);
  const uncertainty = roundTrip / 2;
  const skew = r.serverAt - (r.sentAt + uncertainty);
  return {
    skew_ms: Math.round(skew),
    uncertainty_ms: Math.round(uncertainty),
    round_trip_ms: Math.round(roundTrip),
    too_far: Math.abs(skew) - uncertainty > maxSkewMs,
  };
};
