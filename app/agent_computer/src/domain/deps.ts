import type { PidStatus } from "../adapters/local-host.ts";
import type { LocalProcess, LocalProcesses } from "../local/agent-processes.ts";
import type { Store } from "../store/port.ts";

/** This machine's stable id, a way to look at its processes and its record of agents' processes; injected so tests can fake them. */
export interface LocalHost {
  hostId: string;
  probe(pid: number): PidStatus;
  processes: LocalProcesses;
  /** Every address of this host's interfaces, read at each call: an outbound webhook never reaches this host. */
  addresses(): string[];
}

export type { LocalProcess, LocalProcesses };

/**
 * deliver: the agents a sender's messages reach (a broadcast or channel post counts once per recipient);
 * broadcast: a sender's broadcasts (per name only), on top of its message limit.
 */
export type RateKind = "register" | "send" | "deliver" | "broadcast";
export type RateScope = "name" | "host";

export interface RateRule {
  max: number;
  windowS: number;
}

/** The configured rule of one limit; undefined limits are never consulted, so only they are parsed. */
export interface RateLimits {
  rule(kind: RateKind, scope: RateScope): RateRule | null;
  /** The most agents one broadcast may select; a broadcast that selects more is refused whole. */
  broadcastMaxRecipients(): number;
}

/**
 * What every process gives its domain services, built in one place (cli/kernel/composition-root.ts); tests pass fakes.
 * A service that needs one instant for several records reads the clock once.
 */
export interface Deps {
  /** Opened on first use by the CLI, so a command that never reaches the store never opens it. */
  store: Store;
  /** The clock: frozen at the call's start for one-shot commands, live in the long-running processes. */
  now(): number;
  /** This host's name, as sessions record it. */
  host: string;
  newId(prefix: string): string;
  /** This machine's id and process probe: liveness of agents registered on this host rests on their pid. */
  local?: LocalHost;
  /** Store-backed rate limits of agent-initiated writes; absent means unlimited. */
  limits?: RateLimits;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** This machine's id where the process knows it, else its host name: what per-host rules key on. */
export const hostIdOf = (deps: Pick<Deps, "local" | "host">): string => deps.local?.hostId ?? deps.host;
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/**
 * The same deps with the clock stopped at this instant: for a service whose records must share one timestamp
 * (created and expires, fired and queued) when it runs on a live clock.
 */
export const atOneInstant = (deps: Deps): Deps => {
  const at = deps.now();
  return { ...deps, now: () => at };
};
