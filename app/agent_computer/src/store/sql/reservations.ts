// SQL for file reservations, written once for both dialects ($n placeholders).
import type { ReservationFilter, ReservationRecord, ReservationRepo } from "../port-reservations.ts";
import { type Db, jsonList, num, numOrNull, type Row, str } from "./db.ts";

const toReservation = (r: Row): ReservationRecord => ({
  id: str(r.id),
  repoKey: str(r.repo_key),
  holder: str(r.holder),
  patterns: jsonList(r.patterns),
  exclusive: num(r.exclusive) === 1,
  reason: str(r.reason),
  createdAt: num(r.created_at),
  expiresAt: num(r.expires_at),
  releasedAt: numOrNull(r.released_at),
});

// A holder that is no longer registered holds nothing: its reservations end with it, even before they are released.
// A Herdr writer lane (herdr-writer:<lease id>, domain/reservations/writer-lanes.ts) is no agent: its claim ends them.
const LIVE =
  "r.released_at IS NULL AND r.expires_at > $1 AND " +
  "(r.holder LIKE 'herdr-writer:%' OR EXISTS (SELECT 1 FROM agents a WHERE a.name = r.holder))";

const liveWhere = (filter: ReservationFilter, now: number): { where: string; params: unknown[] } => {
  const params: unknown[] = [now];
  const next = (value: unknown): string => `$${params.push(value)}`;
  let where = LIVE;
  if (filter.repoKey !== undefined) where += ` AND r.repo_key = ${next(filter.repoKey)}`;
  if (filter.holder !== undefined) where += ` AND r.holder = ${next(filter.holder)}`;
  if (filter.after !== undefined) {
    const at = next(filter.after.createdAt);
    where += ` AND (r.created_at > ${at} OR (r.created_at = ${at} AND r.id > ${next(filter.after.id)}))`;
  }
  return { where, params };
};

export const reservationRepo = (db: Db): ReservationRepo => ({
  lockRepo: async (repoKey) => {
    await db.run("INSERT INTO reservation_repos (repo_key) VALUES ($1) ON CONFLICT (repo_key) DO NOTHING", [repoKey]);
    await db.get(`SELECT repo_key FROM reservation_repos WHERE repo_key = $1${db.forUpdate}`, [repoKey]);
  },
  live: async (filter, now, limit) => {
    const { where, params } = liveWhere(filter, now);
    params.push(limit);
    const rows = await db.all<Row>(
      `SELECT r.* FROM file_reservations r WHERE ${where} ORDER BY r.created_at, r.id LIMIT $${params.length}`,
      params,
    );
    return rows.map(toReservation);
  },
  countLive: async (filter, now) => {
    const { where, params } = liveWhere(filter, now);
    return num((await db.get<Row>(`SELECT COUNT(*) AS n FROM file_reservations r WHERE ${where}`, params))?.n ?? 0);
  },
  insert: async (r) => {
    await db.run(
      `INSERT INTO file_reservations (id, repo_key, holder, patterns, exclusive, reason, created_at, expires_at, released_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        r.id,
        r.repoKey,
        r.holder,
        JSON.stringify(r.patterns),
        r.exclusive ? 1 : 0,
        r.reason,
        r.createdAt,
        r.expiresAt,
        r.releasedAt,
      ],
    );
  },
  get: async (id) => {
    const row = await db.get<Row>("SELECT * FROM file_reservations WHERE id = $1", [id]);
    return row ? toReservation(row) : undefined;
  },
  renew: async (id, holder, expiresAt, now) =>
    (await db.run(
      "UPDATE file_reservations SET expires_at = $1 WHERE id = $2 AND holder = $3 AND released_at IS NULL AND expires_at > $4",
      [expiresAt, id, holder, now],
    )) === 1,
  release: async (holder, ids, now) => {
    const params: unknown[] = [now, holder];
    let which = "";
    if (ids !== undefined) {
      if (ids.length === 0) return [];
      which = ` AND id IN (${ids.map((_, i) => `$${i + 3}`).join(", ")})`;
      params.push(...ids);
    }
    const rows = await db.all<Row>(
      `UPDATE file_reservations SET released_at = $1
       WHERE holder = $2 AND released_at IS NULL AND expires_at > $1${which} RETURNING id`,
      params,
    );
    return rows.map((r) => str(r.id)).sort();
  },
});
