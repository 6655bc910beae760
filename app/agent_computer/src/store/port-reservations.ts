// The file-reservation part of the store port: leases on path patterns of one repository (domain/reservations/).

export interface ReservationRecord {
  id: string;
  /** The repository as every host names it (domain/reservations/repository.ts). */
  repoKey: string;
  holder: string;
  /** Normalised patterns (domain/reservations/patterns.ts), relative to the repository root. */
  patterns: string[];
  exclusive: boolean;
  reason: string;
  createdAt: number;
  expiresAt: number;
  releasedAt: number | null;
}

export interface ReservationFilter {
  repoKey?: string;
  holder?: string;
  /** Only those after this one, oldest first (created_at, then id): the page after one that ended there. */
  after?: { createdAt: number; id: string };
}

export interface ReservationRepo {
  /** Serialises reservations of one repository (a row lock on PostgreSQL; SQLite serialises writers anyway). */
  lockRepo(repoKey: string): Promise<void>;
  /** Reservations that still count at `now`: not released, not expired, held by a registered agent. Oldest first. */
  live(filter: ReservationFilter, now: number, limit: number): Promise<ReservationRecord[]>;
  /** How many reservations live(filter, now) would list without a limit. */
  countLive(filter: ReservationFilter, now: number): Promise<number>;
  insert(reservation: ReservationRecord): Promise<void>;
  get(id: string): Promise<ReservationRecord | undefined>;
  /** Moves the expiry of a live reservation of `holder`; false when it is released, expired or another's. */
  renew(id: string, holder: string, expiresAt: number, now: number): Promise<boolean>;
  /** Releases live reservations of `holder` (all of them when ids is undefined); returns the ids released. */
  release(holder: string, ids: readonly string[] | undefined, now: number): Promise<string[]>;
}
