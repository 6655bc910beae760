import type { PidStatus } from "../adapters/local-host.ts";
import type { Store } from "../store/port.ts";

/** This machine's stable id and a way to look at its processes; injected so tests can fake both. */
export interface LocalHost {
  hostId: string;
  probe(pid: number): PidStatus;
}

export type RateKind = "register" | "send";
export type RateScope = "name" | "host";

export interface RateRule {
  max: number;
  windowS: number;
}

/** The configured rule of one limit; undefined limits are never consulted, so only they are parsed. */
export interface RateLimits {
  rule(kind: RateKind, scope: RateScope): RateRule | null;
}

/** What domain services need from the outside world; tests pass a fixed clock and id source. */
export interface Deps {
  store: Store;
  now: number;
  host: string;
  newId(prefix: string): string;
  /** This machine's id and process probe: liveness of agents registered on this host rests on their pid. */
  local?: LocalHost;
  /** Store-backed rate limits of agent-initiated writes; absent means unlimited. */
  limits?: RateLimits;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
