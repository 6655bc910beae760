import type { WakeRepo, WakeTokenRecord, WakeTokenState } from "../port-wake.ts";
import { type Db, num, numOrNull, type Row } from "./db.ts";
import { INBOX_ENTRY_COLUMNS, toInboxEntry } from "./mesh.ts";

const toToken = (r: Row): WakeTokenRecord => ({
  id: String(r.id),
  agentId: String(r.agent_name),
  sessionId: String(r.session_id),
  firstSeq: num(r.first_seq),
  lastSeq: num(r.last_seq),
  messageCount: num(r.message_count),
  cursorSeq: num(r.cursor_seq),
  state: String(r.state) as WakeTokenState,
  createdAt: num(r.created_at),
  expiresAt: num(r.expires_at),
  usedAt: numOrNull(r.used_at),
});

// Which deliveries wake an agent: pending in the session, not a bounce, not the agent's own mail, and above
// the highest cursor of a wake that is used or still running. Expired and failed wakes do not move the cursor,
// so their still-unread messages may wake the agent again (under the hourly cap).
const BACKLOG_SQL = `
  SELECT COUNT(*) AS n, MIN(d.seq) AS first_seq, MAX(d.seq) AS last_seq, MIN(m.created_at) AS first_created_at
  FROM deliveries d JOIN messages m ON m.id = d.message_id
  WHERE d.session_id = $1 AND d.state = 'pending' AND m.kind <> 'bounce' AND m.sender <> $2
    AND d.seq > COALESCE((SELECT MAX(w.cursor_seq) FROM wake_tokens w WHERE w.session_id = $1
                          AND (w.state = 'used' OR (w.state = 'outstanding' AND w.expires_at > $3))), 0)`;

const OUTSTANDING_SQL = `
  SELECT 1 AS x FROM wake_tokens w
  WHERE w.session_id = $1 AND w.state = 'outstanding' AND w.expires_at > $2
    AND EXISTS (SELECT 1 FROM deliveries d WHERE d.session_id = w.session_id AND d.state = 'pending'
                AND d.seq BETWEEN w.first_seq AND w.last_seq)
  LIMIT 1`;

export const wakeRepo = (db: Db): WakeRepo => ({
  backlog: async (sessionId, agentId, now) => {
    const session = await db.get<Row>("SELECT host, ended_at, expires_at FROM sessions WHERE id = $1", [sessionId]);
    const row = await db.get<Row>(BACKLOG_SQL, [sessionId, agentId, now]);
    const count = num(row?.n ?? 0);
    const outstanding = count > 0 && (await db.get<Row>(OUTSTANDING_SQL, [sessionId, now])) !== undefined;
    return {
      session: session
        ? { host: String(session.host), endedAt: numOrNull(session.ended_at), expiresAt: num(session.expires_at) }
        : null,
      count,
      firstSeq: numOrNull(row?.first_seq),
      lastSeq: numOrNull(row?.last_seq),
      firstCreatedAt: numOrNull(row?.first_created_at),
      outstanding,
    };
  },
  closeStaleWakes: async (agentId, now) => {
    await db.run(
      `UPDATE wake_tokens SET state = 'expired'
       WHERE agent_name = $1 AND state = 'outstanding'
         AND (expires_at <= $2 OR NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = wake_tokens.session_id AND s.ended_at IS NULL))`,
      [agentId, now],
    );
    await db.run(
      `UPDATE wake_tokens SET state = 'settled'
       WHERE agent_name = $1 AND state = 'outstanding'
         AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.session_id = wake_tokens.session_id AND d.state = 'pending'
                         AND d.seq BETWEEN wake_tokens.first_seq AND wake_tokens.last_seq)`,
      [agentId],
    );
  },
  countSince: async (agentId, since) =>
    num(
      (await db.get<Row>("SELECT COUNT(*) AS n FROM wake_tokens WHERE agent_name = $1 AND created_at > $2", [agentId, since]))
        ?.n ?? 0,
    ),
  oldestSince: async (agentId, since) =>
    numOrNull(
      (
        await db.get<Row>("SELECT MIN(created_at) AS t FROM wake_tokens WHERE agent_name = $1 AND created_at > $2", [
          agentId,
          since,
        ])
      )?.t,
    ),
  insert: async (t) => {
    await db.run(
      `INSERT INTO wake_tokens (id, token_hash, agent_name, session_id, first_seq, last_seq, message_count, cursor_seq, state,
         created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $6, 'outstanding', $8, $9)`,
      [t.id, t.tokenHash, t.agentId, t.sessionId, t.firstSeq, t.lastSeq, t.messageCount, t.createdAt, t.expiresAt],
    );
  },
  findByHash: async (tokenHash) => {
    const row = await db.get<Row>(`SELECT * FROM wake_tokens WHERE token_hash = $1${db.forUpdate}`, [tokenHash]);
    return row ? toToken(row) : undefined;
  },
  markUsed: async (id, now, cursorSeq) => {
    await db.run("UPDATE wake_tokens SET state = 'used', used_at = $2, cursor_seq = $3 WHERE id = $1", [id, now, cursorSeq]);
  },
  markFailed: async (id) => {
    await db.run("UPDATE wake_tokens SET state = 'failed' WHERE id = $1 AND state = 'outstanding'", [id]);
  },
  pendingFrom: async (sessionId, fromSeq, limit) =>
    (
      await db.all<Row>(
        `SELECT ${INBOX_ENTRY_COLUMNS} FROM deliveries d JOIN messages m ON m.id = d.message_id
         WHERE d.session_id = $1 AND d.state = 'pending' AND d.seq >= $2 ORDER BY d.seq LIMIT $3`,
        [sessionId, fromSeq, limit],
      )
    ).map(toInboxEntry),
});
