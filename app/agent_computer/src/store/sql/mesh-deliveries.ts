// Messages and their deliveries: the statements of a send, and the order in which a send sends them. On PostgreSQL
// statements that do not need each other's answers are sent together and their answers awaited together (one
// round trip instead of several); SQLite runs them one after the other.
import type { InboxSlot, MeshRepo, NewMessage, WebhookRepo } from "../port.ts";
import { lockAgentRows } from "./agent-locks.ts";
import { type Db, num, type Row, str, strOrNull } from "./db.ts";

/** An open session still live at the time placeholder `now` (the delivery rule); `alias` qualifies the columns. */
export const liveAt = (now: string, alias = ""): string => `${alias}ended_at IS NULL AND ${alias}expires_at > ${now}`;

// The hottest statements are built once: a template literal builds a new string on every call, and the driver
// hashes that string to find its prepared statement.
const NEXT_SEQ_SQL = "UPDATE agents SET last_seq = last_seq + 1 WHERE name = $1";
/** The open session of the agent named $1 if it is live at $2: the delivery rule. */
const LIVE_SESSION_ID = `(SELECT id FROM sessions WHERE agent_name = $1 AND ${liveAt("$2")})`;
/** Read with the slot (same row, no extra lookup): the recipient's recorded process, for the liveness rule. */
const SLOT_COLUMNS = `last_seq, name, host_id, ${LIVE_SESSION_ID} AS session_id`;
const INBOX_SLOT_SQL = `SELECT ${SLOT_COLUMNS} FROM agents WHERE name = $1`;
const INBOX_SLOT_RETURNING_SQL = `${NEXT_SEQ_SQL} RETURNING ${SLOT_COLUMNS}`;
const DELIVER_PG_SQL = `WITH slot AS (${INBOX_SLOT_RETURNING_SQL}),
  delivered AS (INSERT INTO deliveries (message_id, recipient, seq, state, session_id)
    SELECT $3, $1, last_seq, CASE WHEN session_id IS NULL THEN 'not_checked_in' ELSE 'pending' END, session_id FROM slot)
  SELECT * FROM slot`;
const INSERT_MESSAGE_SQL =
  "INSERT INTO messages (id, sender, kind, body, thread_id, idempotency_key, idempotency_hash, reply_to, channel, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
/**
 * The message ($3 … $12, in INSERT_MESSAGE_SQL's order) and its delivery to agent $1 at $2, one statement: the
 * delivery's foreign key is checked at the end of the statement, when the message row is there.
 */
const INSERT_AND_DELIVER_PG_SQL = `WITH message AS (INSERT INTO messages (id, sender, kind, body, thread_id, idempotency_key,
    idempotency_hash, reply_to, channel, created_at) VALUES ($3, $4, $5, $6, $7, $8, $9, $10, $11, $12)),
  slot AS (${INBOX_SLOT_RETURNING_SQL}),
  delivered AS (INSERT INTO deliveries (message_id, recipient, seq, state, session_id)
    SELECT $3, $1, last_seq, CASE WHEN session_id IS NULL THEN 'not_checked_in' ELSE 'pending' END, session_id FROM slot)
  SELECT * FROM slot`;

const messageParams = (m: NewMessage): unknown[] => [
  m.id,
  m.sender,
  m.kind,
  m.body,
  m.threadId,
  m.idempotencyKey,
  m.idempotencyHash ?? null,
  m.replyTo ?? null,
  m.channel ?? null,
  m.createdAt,
];

const toInboxSlot = (row: Row | undefined): InboxSlot | undefined =>
  row
    ? {
        seq: num(row.last_seq),
        sessionId: row.session_id == null ? undefined : str(row.session_id),
        holder: { agentId: str(row.name), hostId: strOrNull(row.host_id) },
      }
    : undefined;

/**
 * `first`'s failure if it failed, else `rest`'s: for a statement sent ahead of others without waiting for its
 * answer (PostgreSQL answers them in order, and a failed statement fails every later one of the transaction with
 * "transaction aborted"), so the caller hears the failure that caused the others.
 */
const firstFailure = async <T>(first: Promise<unknown>, rest: () => Promise<T>): Promise<T> => {
  // Handled here at once: `rest` may throw before `first` is awaited.
  first.catch(() => undefined);
  let value: T;
  try {
    value = await rest();
  } catch (error) {
    await first;
    throw error;
  }
  await first;
  return value;
};

type DeliveryOps = Pick<
  MeshRepo,
  "takeInboxSlot" | "deliver" | "insertMessage" | "insertAndDeliver" | "insertDelivery" | "storeMessage"
>;

/** The mesh repository's message and delivery operations; `presence` are its own touchAgent and extendSession. */
export const deliveryOps = (
  db: Db,
  webhooks: Pick<WebhookRepo, "subscribers">,
  presence: Pick<MeshRepo, "touchAgent" | "extendSession">,
): DeliveryOps => {
  const takeInboxSlot: MeshRepo["takeInboxSlot"] = async (agentId, now) => {
    // SQLite runs an UPDATE … RETURNING through a temporary table: an UPDATE and a read of the same row in
    // the same transaction cost half as much. PostgreSQL keeps the single round trip.
    if (db.dialect === "sqlite") {
      if ((await db.run(NEXT_SEQ_SQL, [agentId])) === 0) return undefined;
      return toInboxSlot(await db.get<Row>(INBOX_SLOT_SQL, [agentId, now]));
    }
    return toInboxSlot(await db.get<Row>(INBOX_SLOT_RETURNING_SQL, [agentId, now]));
  };
  const insertDelivery: MeshRepo["insertDelivery"] = async (d) => {
    await db.run("INSERT INTO deliveries (message_id, recipient, seq, state, session_id) VALUES ($1, $2, $3, $4, $5)", [
      d.messageId,
      d.recipient,
      d.seq,
      d.state,
      d.sessionId,
    ]);
  };
  const insertMessage: MeshRepo["insertMessage"] = async (m) => {
    await db.run(INSERT_MESSAGE_SQL, messageParams(m));
  };
  const deliver: MeshRepo["deliver"] = async (messageId, agentId, now) => {
    if (db.dialect === "postgres") return toInboxSlot(await db.get<Row>(DELIVER_PG_SQL, [agentId, now, messageId]));
    const slot = await takeInboxSlot(agentId, now);
    if (slot) {
      const state = slot.sessionId ? "pending" : "not_checked_in";
      await insertDelivery({ messageId, recipient: agentId, seq: slot.seq, state, sessionId: slot.sessionId ?? null });
    }
    return slot;
  };
  const insertAndDeliver: MeshRepo["insertAndDeliver"] = async (m, agentId, now) => {
    if (db.dialect === "postgres") {
      return toInboxSlot(await db.get<Row>(INSERT_AND_DELIVER_PG_SQL, [agentId, now, ...messageParams(m)]));
    }
    await insertMessage(m);
    return deliver(m.id, agentId, now);
  };
  /** A delivery, with the recipient's endpoints read right behind it, without waiting for its answer. */
  const delivered = async (recipient: string, delivering: Promise<InboxSlot | undefined>) => {
    const subscribers = webhooks.subscribers(recipient, "message");
    subscribers.catch(() => undefined);
    const slot = await delivering;
    const endpoints = await subscribers;
    return { slot, subscribers: slot ? endpoints : [] };
  };
  const storeMessage: MeshRepo["storeMessage"] = ({ message, recipients, presence: owed, now }) => {
    const [only] = recipients;
    // The common send: one recipient, presence fresh. Nothing to lock first or write between, so the message and
    // its delivery go in one statement.
    if (recipients.length === 1 && only !== undefined && !owed.touch && !owed.extend) {
      return delivered(only, insertAndDeliver(message, only, now)).then((one) => [one]);
    }
    return firstFailure(insertMessage(message), async () => {
      const rows = new Set([...(owed.touch ? [owed.agentId] : []), ...recipients]);
      // One row needs no statement of its own: its UPDATE takes its lock.
      if (rows.size > 1) await lockAgentRows(db, [...rows]);
      if (owed.touch) await presence.touchAgent(owed.agentId, now);
      if (owed.extend) await presence.extendSession(owed.agentId, now);
      return Promise.all(recipients.map((name) => delivered(name, deliver(message.id, name, now))));
    });
  };
  return { takeInboxSlot, deliver, insertMessage, insertAndDeliver, insertDelivery, storeMessage };
};
