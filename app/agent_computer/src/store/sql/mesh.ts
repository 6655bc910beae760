import type {
  AgentRecord,
  CallerState,
  DeliveryRecord,
  DeliveryState,
  ExpiredDelivery,
  InboxEntry,
  InboxGlance,
  MeshRepo,
  SentMessage,
  ThreadEntry,
  WebhookRepo,
} from "../port.ts";
import { lockAgentRows } from "./agent-locks.ts";
import { type Db, jsonList, num, numOrNull, placeholders, type Row, str, strOrNull } from "./db.ts";
import { broadcastOps } from "./mesh-broadcast.ts";
import { contactOps } from "./mesh-contacts.ts";
import { deliveryOps, liveAt } from "./mesh-deliveries.ts";
import { directoryOps } from "./mesh-directory.ts";
import { searchMessages } from "./mesh-search.ts";
import { withFirstRecipients } from "./mesh-sent.ts";
import { ofCurrentHolder, seenBy } from "./seen-by.ts";
import { EXPIRY_DUE_SQL, expiryDueAt, ranOut } from "./session-expiry-sql.ts";
import { SESSION_COLUMNS, toSession } from "./session-rows.ts";

export const toAgent = (r: Row): AgentRecord => ({
  agentId: str(r.name),
  tokenHash: str(r.token_hash),
  role: strOrNull(r.role),
  capabilities: jsonList(r.capabilities),
  agentClass: str(r.class),
  description: strOrNull(r.description),
  hostId: strOrNull(r.host_id),
  authState: str(r.auth_state) as AgentRecord["authState"],
  lastSeq: num(r.last_seq),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
  lastSeenAt: num(r.last_seen_at),
});

/** The columns of a pending delivery as the inbox shows it (deliveries d joined to messages m); see toInboxEntry. */
export const INBOX_ENTRY_COLUMNS = "m.id, d.seq, m.sender, m.kind, m.body, m.thread_id, m.reply_to, m.channel, m.created_at";

export const toInboxEntry = (r: Row): InboxEntry => ({
  id: str(r.id),
  seq: num(r.seq),
  sender: str(r.sender),
  kind: str(r.kind),
  body: str(r.body),
  threadId: strOrNull(r.thread_id),
  replyTo: strOrNull(r.reply_to),
  channel: strOrNull(r.channel),
  createdAt: num(r.created_at),
});

const toDelivery = (r: Row): DeliveryRecord => ({
  messageId: str(r.message_id),
  recipient: str(r.recipient),
  seq: num(r.seq),
  state: str(r.state) as DeliveryState,
  sessionId: strOrNull(r.session_id),
  ackedAt: numOrNull(r.acked_at),
  closedAt: numOrNull(r.closed_at),
});

const withDeliveries = async (db: Db, rows: Row[]): Promise<SentMessage[]> => {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => str(r.id));
  const deliveries = (
    await db.all<Row>(`SELECT * FROM deliveries WHERE message_id IN (${placeholders(ids.length)}) ORDER BY recipient`, ids)
  ).map(toDelivery);
  return rows.map((r) => ({
    id: str(r.id),
    kind: str(r.kind),
    body: str(r.body),
    threadId: strOrNull(r.thread_id),
    replyTo: strOrNull(r.reply_to),
    createdAt: num(r.created_at),
    idempotencyHash: strOrNull(r.idempotency_hash),
    deliveries: deliveries.filter((d) => d.messageId === r.id),
  }));
};

/** A message older than the one at (`at`, `id`), by created_at and then id. */
const sentBefore = (at: string, id: string): string => `(m.created_at < ${at} OR (m.created_at = ${at} AND m.id < ${id}))`;

/** A message newer than the one at (`at`, `id`), by created_at and then id. */
const threadAfter = (at: string, id: string): string => `(m.created_at > ${at} OR (m.created_at = ${at} AND m.id > ${id}))`;

// The hottest statements are built once: a template literal builds a new string on every call, and the driver
// hashes that string to find its prepared statement.
const AGENT_SQL = "SELECT * FROM agents WHERE name = $1";
const OPEN_SESSION_SQL = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE agent_name = $1 AND ended_at IS NULL`;
/** The live session of agent $1 at $2 and what waits in it, counted without reading a body. */
const GLANCE_SQL = `SELECT s.id AS session_id, COUNT(d.seq) AS n, MAX(d.seq) AS newest_seq, MIN(m.created_at) AS oldest_at
  FROM sessions s
  LEFT JOIN deliveries d ON d.session_id = s.id AND d.state = 'pending'
  LEFT JOIN messages m ON m.id = d.message_id
  WHERE s.agent_name = $1 AND ${liveAt("$2", "s.")}
  GROUP BY s.id`;
/** Extends the agent's open session by its own ttl; renewSession also reads the session back. */
const EXTEND_SESSION_SQL =
  "UPDATE sessions SET last_activity_at = $2, expires_at = $2 + ttl_seconds * 1000 WHERE agent_name = $1 AND ended_at IS NULL";
const RENEW_SESSION_SQL = `${EXTEND_SESSION_SQL} RETURNING ${SESSION_COLUMNS}`;
const TOUCH_AGENT_SQL = "UPDATE agents SET last_seen_at = $2 WHERE name = $1 AND last_seen_at < $2";
// At most one open session per agent (index sessions_one_open), so the join finds at most one row.
export const CALLER_STATE_SQL = `SELECT a.token_hash, a.auth_state, a.last_seen_at,
  s.last_activity_at AS session_activity_at, s.expires_at AS session_expires_at,
  ${expiryDueAt("$2")} AS expiry_due
  FROM agents a LEFT JOIN sessions s ON s.agent_name = a.name AND s.ended_at IS NULL WHERE a.name = $1`;
const END_EXPIRED_SQL = `UPDATE sessions SET ended_at = expires_at WHERE ${ranOut("$1")} RETURNING ${SESSION_COLUMNS}`;
const toCallerState = (r: Row): CallerState => ({
  tokenHash: str(r.token_hash),
  authState: str(r.auth_state) as CallerState["authState"],
  lastSeenAt: num(r.last_seen_at),
  sessionActivityAt: r.session_activity_at == null ? undefined : num(r.session_activity_at),
  sessionExpiresAt: r.session_expires_at == null ? undefined : num(r.session_expires_at),
  // PostgreSQL answers a comparison with a boolean, SQLite with 1 or 0.
  expiryDue: r.expiry_due === true || r.expiry_due === 1,
});
/** `webhooks`: the same transaction's, for the endpoints a delivery tells (storeMessage). */
export const meshRepo = (db: Db, webhooks: Pick<WebhookRepo, "subscribers">): MeshRepo => {
  const agentLockedSql = `${AGENT_SQL}${db.forUpdate}`;
  const touchAgent: MeshRepo["touchAgent"] = async (name, now) => {
    await db.run(TOUCH_AGENT_SQL, [name, now]);
  };
  const extendSession: MeshRepo["extendSession"] = async (agentId, now) => {
    await db.run(EXTEND_SESSION_SQL, [agentId, now]);
  };
  const deliveries = deliveryOps(db, webhooks, { touchAgent, extendSession });
  return {
    ...deliveries,
    ...broadcastOps(db, deliveries.insertMessage, { touchAgent, extendSession }),
    touchAgent,
    extendSession,
    getAgent: async (name, lock = false) => {
      const row = await db.get<Row>(lock ? agentLockedSql : AGENT_SQL, [name]);
      return row ? toAgent(row) : undefined;
    },
    callerState: async (name, now) => {
      const row = await db.get<Row>(CALLER_STATE_SQL, [name, now]);
      return row ? toCallerState(row) : undefined;
    },
    lockAgents: (names) => lockAgentRows(db, names),
    endExpiredSessions: async (now) => {
      // Nearly every call finds nothing due, and a read that finds nothing costs less than an UPDATE that
      // changes nothing. The UPDATE still decides: a session it ends is returned to exactly one caller.
      const due = await db.get(EXPIRY_DUE_SQL, [now]);
      if (!due) return [];
      return (await db.all<Row>(END_EXPIRED_SQL, [now])).map(toSession);
    },
    expireDeliveries: async (sessionId, now) =>
      (
        await db.all<Row>(
          `UPDATE deliveries SET state = 'expired_undelivered', closed_at = $2
         WHERE session_id = $1 AND state = 'pending'
         RETURNING message_id, (SELECT sender FROM messages m WHERE m.id = deliveries.message_id) AS sender,
                   (SELECT kind FROM messages m WHERE m.id = deliveries.message_id) AS kind`,
          [sessionId, now],
        )
      ).map((r) => ({ messageId: str(r.message_id), sender: str(r.sender), kind: str(r.kind) }) satisfies ExpiredDelivery),
    openSession: async (agentId) => {
      const row = await db.get<Row>(OPEN_SESSION_SQL, [agentId]);
      return row ? toSession(row) : undefined;
    },
    insertSession: async (s) => {
      await db.run(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (${placeholders(14)})`, [
        s.id,
        s.agentId,
        s.host,
        s.role,
        s.repo,
        JSON.stringify(s.caps),
        s.statusLine,
        s.statusSetAt,
        s.ttlSeconds,
        s.startedAt,
        s.lastActivityAt,
        s.expiresAt,
        s.watermarkSeq,
        s.endedAt,
      ]);
    },
    updateSession: async (s) => {
      await db.run(
        `UPDATE sessions SET host = $2, role = $3, repo = $4, caps = $5, status_line = $6, status_set_at = $7,
         ttl_seconds = $8, last_activity_at = $9, expires_at = $10 WHERE id = $1`,
        [
          s.id,
          s.host,
          s.role,
          s.repo,
          JSON.stringify(s.caps),
          s.statusLine,
          s.statusSetAt,
          s.ttlSeconds,
          s.lastActivityAt,
          s.expiresAt,
        ],
      );
    },
    renewSession: async (agentId, now) => {
      const row = await db.get<Row>(RENEW_SESSION_SQL, [agentId, now]);
      return row ? toSession(row) : undefined;
    },
    findByIdempotencyKey: async (sender, key) => {
      const rows = await db.all<Row>("SELECT * FROM messages WHERE sender = $1 AND idempotency_key = $2", [sender, key]);
      return (await withDeliveries(db, rows))[0];
    },
    releaseIdempotencyKey: async (sender, key, olderThan) => {
      await db.run("UPDATE messages SET idempotency_key = NULL WHERE sender = $1 AND idempotency_key = $2 AND created_at < $3", [
        sender,
        key,
        olderThan,
      ]);
    },
    pending: async (sessionId, limit, afterSeq = 0) =>
      (
        await db.all<Row>(
          `SELECT ${INBOX_ENTRY_COLUMNS} FROM deliveries d JOIN messages m ON m.id = d.message_id
         WHERE d.session_id = $1 AND d.state = 'pending' AND d.seq > $3 ORDER BY d.seq LIMIT $2`,
          [sessionId, limit, afterSeq],
        )
      ).map(toInboxEntry),
    countPending: async (sessionId, afterSeq = 0) =>
      num(
        (
          await db.get<Row>("SELECT COUNT(*) AS n FROM deliveries WHERE session_id = $1 AND state = 'pending' AND seq > $2", [
            sessionId,
            afterSeq,
          ])
        )?.n ?? 0,
      ),
    glanceInbox: async (agentId, now) => {
      const row = await db.get<Row>(GLANCE_SQL, [agentId, now]);
      if (!row) return undefined;
      return {
        sessionId: str(row.session_id),
        count: num(row.n),
        newestSeq: numOrNull(row.newest_seq),
        oldestCreatedAt: numOrNull(row.oldest_at),
      } satisfies InboxGlance;
    },
    deliveriesOf: async (recipient, ids) =>
      ids.length === 0
        ? []
        : (
            await db.all<Row>(
              `SELECT * FROM deliveries WHERE recipient = $1 AND message_id IN (${placeholders(ids.length, 2)})`,
              [recipient, ...ids],
            )
          ).map(toDelivery),
    ack: async (recipient, ids, now) =>
      ids.length === 0
        ? []
        : (
            await db.all<Row>(
              `UPDATE deliveries SET state = 'acked', acked_at = $2, closed_at = $2
             WHERE recipient = $1 AND state = 'pending' AND message_id IN (${placeholders(ids.length, 3)})
             RETURNING message_id`,
              [recipient, now, ...ids],
            )
          ).map((r) => str(r.message_id)),
    ackUpToSeq: async (sessionId, seq, now) =>
      (
        await db.all<Row>(
          `UPDATE deliveries SET state = 'acked', acked_at = $3, closed_at = $3
         WHERE session_id = $1 AND state = 'pending' AND seq <= $2 RETURNING message_id`,
          [sessionId, seq, now],
        )
      ).map((r) => str(r.message_id)),
    sent: async (sender, limit, before, recipientsShown) =>
      withFirstRecipients(
        db,
        await db.all<Row>(
          `SELECT * FROM messages m WHERE m.sender = $1 AND ${ofCurrentHolder("$1")}${before ? ` AND ${sentBefore("$3", "$4")}` : ""}
           ORDER BY m.created_at DESC, m.id DESC LIMIT $2`,
          before ? [sender, limit, before.createdAt, before.id] : [sender, limit],
        ),
        recipientsShown,
      ),
    countSent: async (sender, before) =>
      num(
        (
          await db.get<Row>(
            `SELECT COUNT(*) AS n FROM messages m WHERE m.sender = $1 AND ${ofCurrentHolder("$1")} AND ${sentBefore("$2", "$3")}`,
            [sender, before.createdAt, before.id],
          )
        )?.n ?? 0,
      ),
    messageSeenBy: async (messageId, agentId) => {
      const row = await db.get<Row>(`SELECT m.id, m.sender, m.thread_id FROM messages m WHERE m.id = $1 AND ${seenBy("$2")}`, [
        messageId,
        agentId,
      ]);
      return row ? { id: str(row.id), sender: str(row.sender), threadId: strOrNull(row.thread_id) } : undefined;
    },
    thread: async (threadId, agentId, limit, after) => {
      const rows = await db.all<Row>(
        `SELECT m.id, m.sender, m.kind, m.body, m.thread_id, m.reply_to, m.created_at FROM messages m
         WHERE (m.thread_id = $1 OR m.id = $1) AND ${seenBy("$2")}${after ? ` AND ${threadAfter("$4", "$5")}` : ""}
         ORDER BY m.created_at, m.id LIMIT $3`,
        after ? [threadId, agentId, limit, after.createdAt, after.id] : [threadId, agentId, limit],
      );
      const own = rows.filter((r) => str(r.sender) === agentId).map((r) => str(r.id));
      const deliveries =
        own.length === 0
          ? []
          : await db.all<Row>(
              `SELECT message_id, recipient FROM deliveries WHERE message_id IN (${placeholders(own.length)}) ORDER BY recipient`,
              own,
            );
      return rows.map((r) => ({
        id: str(r.id),
        sender: str(r.sender),
        kind: str(r.kind),
        body: str(r.body),
        threadId: strOrNull(r.thread_id),
        replyTo: strOrNull(r.reply_to),
        createdAt: num(r.created_at),
        recipients:
          str(r.sender) === agentId ? deliveries.filter((d) => d.message_id === r.id).map((d) => str(d.recipient)) : null,
      })) satisfies ThreadEntry[];
    },
    countThread: async (threadId, agentId, after) =>
      num(
        (
          await db.get<Row>(
            `SELECT COUNT(*) AS n FROM messages m
             WHERE (m.thread_id = $1 OR m.id = $1) AND ${seenBy("$2")} AND ${threadAfter("$3", "$4")}`,
            [threadId, agentId, after.createdAt, after.id],
          )
        )?.n ?? 0,
      ),
    search: (agentId, words, limit, plan, after) => searchMessages(db, agentId, words, limit, plan, after),
    ...contactOps(db),
    ...directoryOps(db),
    liveSessions: async (now) =>
      (await db.all<Row>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE ${liveAt("$1")} ORDER BY agent_name`, [now])).map(
        toSession,
      ),
  };
};
