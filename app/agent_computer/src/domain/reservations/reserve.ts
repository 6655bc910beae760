// File reservations: an agent leases path patterns of one repository for a while, exclusive or shared. An exclusive
// reservation conflicts with any other agent's reservation on an overlapping pattern (patterns.ts), a shared one only
// with exclusive ones. Each repository's reservations are decided one at a time (its row in reservation_repos is
// locked after the holder's own row, the one lock order), so of two racing overlapping reservations exactly one wins.
import { AppError } from "../../errors.ts";
import type { ReservationRecord, StoreTx } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { patternsConflict } from "./patterns.ts";

export const DEFAULT_TTL_S = 3600;
export const MAX_TTL_S = 86_400;
export const MAX_PATTERNS = 100;
/** Live reservations one repository may hold; a conflict check reads them all. */
export const MAX_LIVE_PER_REPO = 2000;
/** Holders named in a refusal; the count says how many more there were. */
const SHOWN_CONFLICTS = 10;
/** Conflicts a check lists. */
const SHOWN_CHECKED = 50;

export interface ReservationView {
  id: string;
  repo: string;
  holder: string;
  patterns: string[];
  exclusive: boolean;
  reason: string;
  created_at: string;
  expires_at: string;
}

export const reservationView = (r: ReservationRecord): ReservationView => ({
  id: r.id,
  repo: r.repoKey,
  holder: r.holder,
  patterns: r.patterns,
  exclusive: r.exclusive,
  reason: r.reason,
  created_at: iso(r.createdAt),
  expires_at: iso(r.expiresAt),
});

export interface Conflict {
  holder: string;
  id: string;
  patterns: string[];
  exclusive: boolean;
  expires_at: string;
  /** For the guard: the touched paths this reservation covers. */
  paths?: string[];
}

/** Other agents' live reservations that `patterns` would overlap (any overlap when either side is exclusive). */
export const conflictsWith = (
  live: readonly ReservationRecord[],
  me: string | undefined,
  patterns: readonly string[],
  exclusive: boolean,
): Conflict[] =>
  live
    .filter((r) => r.holder !== me && (r.exclusive || exclusive))
    .map((r) => ({ r, hit: r.patterns.filter((theirs) => patterns.some((mine) => patternsConflict(mine, theirs))) }))
    .filter(({ hit }) => hit.length > 0)
    .map(({ r, hit }) => ({ holder: r.holder, id: r.id, patterns: hit, exclusive: r.exclusive, expires_at: iso(r.expiresAt) }));

export const conflictError = (conflicts: readonly Conflict[], what: string, hint: string): AppError => {
  const shown = conflicts.slice(0, SHOWN_CONFLICTS);
  const lines = shown.map(
    (c) =>
      `${c.holder} holds ${c.patterns.join(", ")} (${c.exclusive ? "exclusive" : "shared"}) until ${c.expires_at}` +
      (c.paths ? ` [${c.paths.join(", ")}]` : ""),
  );
  const more = conflicts.length > shown.length ? `; and ${conflicts.length - shown.length} more` : "";
  return new AppError("CONFLICT", `${what}: ${lines.join("; ")}${more}`, {
    hint,
    details: { conflicts: shown, more: conflicts.length - shown.length },
  });
};

export const liveIn = async (tx: StoreTx, repoKey: string, now: number): Promise<ReservationRecord[]> =>
  tx.reservations.live({ repoKey }, now, MAX_LIVE_PER_REPO + 1);

export interface ReserveInput {
  agentId: string;
  token: string | undefined;
  repoKey: string;
  patterns: string[];
  exclusive: boolean;
  ttlS: number;
  reason: string;
}

export const reserve = (deps: Deps, input: ReserveInput): Promise<ReservationView> =>
  deps.store.write(async (tx) => {
    const now = deps.now();
    await authenticate(tx, input.agentId, input.token, { lock: true });
    await tx.reservations.lockRepo(input.repoKey);
    const live = await liveIn(tx, input.repoKey, now);
    const conflicts = conflictsWith(live, input.agentId, input.patterns, input.exclusive);
    if (conflicts.length > 0) {
      throw conflictError(
        conflicts,
        `not reserved, ${input.exclusive ? "exclusive" : "shared"} ${input.patterns.join(", ")} overlaps`,
        "ask the holder (agent-send-cli), wait until it expires, or reserve other paths; nothing was reserved",
      );
    }
    if (live.length >= MAX_LIVE_PER_REPO) {
      throw new AppError("CONFLICT", `the repository already holds ${MAX_LIVE_PER_REPO} live reservations`, {
        hint: "release some (agent-reserve-cli release) or wait for them to expire",
      });
    }
    const record: ReservationRecord = {
      id: deps.newId("rsv"),
      repoKey: input.repoKey,
      holder: input.agentId,
      patterns: input.patterns,
      exclusive: input.exclusive,
      reason: input.reason,
      createdAt: now,
      expiresAt: now + input.ttlS * 1000,
      releasedAt: null,
    };
    await tx.reservations.insert(record);
    return reservationView(record);
  });

export interface OwnInput {
  agentId: string;
  token: string | undefined;
  /** Which of the agent's reservations; undefined: all of them in repoKey. */
  ids: string[] | undefined;
  repoKey: string | undefined;
}

const ownIds = async (tx: StoreTx, input: OwnInput, now: number): Promise<string[]> => {
  if (input.ids) return input.ids;
  const repoKey = input.repoKey;
  const mine = await tx.reservations.live({ holder: input.agentId, ...(repoKey ? { repoKey } : {}) }, now, MAX_LIVE_PER_REPO);
  return mine.map((r) => r.id);
};

const notYours = (ids: readonly string[]): AppError =>
  new AppError("NOT_FOUND", `no live reservation of yours with id ${ids.join(", ")}`, {
    hint: "agent-reserve-cli list --holder <you> shows yours; released and expired ones cannot be renewed",
  });

/** Extends the agent's own live reservations to now + ttl; an expired or released one is not revived. */
export const renew = (deps: Deps, input: OwnInput & { ttlS: number }): Promise<{ renewed: ReservationView[] }> =>
  deps.store.write(async (tx) => {
    const now = deps.now();
    await authenticate(tx, input.agentId, input.token, { lock: true });
    const ids = await ownIds(tx, input, now);
    const missing: string[] = [];
    for (const id of ids) if (!(await tx.reservations.renew(id, input.agentId, now + input.ttlS * 1000, now))) missing.push(id);
    if (missing.length > 0) throw notYours(missing);
    const renewed: ReservationView[] = [];
    for (const id of ids) {
      const record = await tx.reservations.get(id);
      if (record) renewed.push(reservationView(record));
    }
    return { renewed };
  });

/** Releases the agent's own live reservations: they stop counting at once. */
export const release = (deps: Deps, input: OwnInput): Promise<{ released: string[] }> =>
  deps.store.write(async (tx) => {
    const now = deps.now();
    await authenticate(tx, input.agentId, input.token, { lock: true });
    const ids = await ownIds(tx, input, now);
    const released = await tx.reservations.release(input.agentId, ids, now);
    const missing = ids.filter((id) => !released.includes(id));
    if (missing.length > 0) throw notYours(missing);
    return { released };
  });

export interface ListInput {
  repoKey: string;
  holder: string | undefined;
  limit: number;
}

export const listReservations = async (
  deps: Deps,
  input: ListInput,
): Promise<{ repo: string; reservations: ReservationView[]; more: boolean }> => {
  const rows = await deps.store.read((tx) =>
    tx.reservations.live(
      { repoKey: input.repoKey, ...(input.holder ? { holder: input.holder } : {}) },
      deps.now(),
      input.limit + 1,
    ),
  );
  return { repo: input.repoKey, reservations: rows.slice(0, input.limit).map(reservationView), more: rows.length > input.limit };
};

/** Other agents' live reservations that the patterns (or paths) overlap: exclusive ones, and shared ones too for an exclusive check. */
export const checkPatterns = async (
  deps: Deps,
  input: { repoKey: string; agentId: string | undefined; patterns: string[]; exclusive: boolean },
): Promise<{ repo: string; clear: boolean; conflicts: Conflict[]; more: number }> => {
  const live = await deps.store.read((tx) => liveIn(tx, input.repoKey, deps.now()));
  const conflicts = conflictsWith(live, input.agentId, input.patterns, input.exclusive);
  const shown = conflicts.slice(0, SHOWN_CHECKED);
  return { repo: input.repoKey, clear: conflicts.length === 0, conflicts: shown, more: conflicts.length - shown.length };
};
