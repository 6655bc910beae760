// SQL for the operator's tools (agent-computer-admin) and the worker's retention, written once for both dialects.
import type { AdminRepo, MailRecord, PruneCounts } from "../port-admin.ts";
import { type Db, num, numOrNull, placeholders, type Row, str, strOrNull } from "./db.ts";
import { ofCurrentHolder } from "./seen-by.ts";

/**
 * A message past the cut-off ($1) may go once nothing waits on it: no delivery of it is still pending, its
 * idempotency key (if any) is past $2 so a retry can no longer be answered from it, and no thread it belongs to (its
 * thread_id, or its own id when a reply started a thread from it) has a message newer than the cut-off: a thread
 * still in use is kept whole.
 */
const nothingWaitsOn = (
  m: string,
): string => `NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = ${m}.id AND d.state = 'pending')
  AND (${m}.idempotency_key IS NULL OR ${m}.created_at < $2)
  AND NOT EXISTS (SELECT 1 FROM messages t WHERE t.thread_id = ${m}.thread_id AND t.created_at >= $1)
  AND NOT EXISTS (SELECT 1 FROM messages t WHERE t.thread_id = ${m}.id AND t.created_at >= $1)`;
const PRUNABLE_MESSAGES = `SELECT m.id, m.created_at FROM messages m WHERE m.created_at < $1 AND ${nothingWaitsOn("m")}`;
// Oldest first along messages_by_age (migration 020) from just after the previous batch's last row ($4, $5), so a
// batch reads a stretch of an index, never the table, nor again the kept rows earlier batches passed.
export const PRUNABLE_BATCH = `${PRUNABLE_MESSAGES} AND m.created_at >= $4 AND (m.created_at > $4 OR m.id > $5)
  ORDER BY m.created_at, m.id LIMIT $3`;

/** A run in progress (queued or running) keeps its tails; an ended one loses them past the cut-off, the run stays. */
const ENDED_RUNS_WITH_TAILS = `SELECT id FROM automation_runs
  WHERE state IN ('succeeded', 'failed', 'cancelled') AND COALESCE(finished_at, created_at) < $1
    AND (stdout_tail IS NOT NULL OR stderr_tail IS NOT NULL)`;

const ENDED_WEBHOOK_EVENTS = "SELECT id FROM webhook_events WHERE state IN ('delivered', 'failed') AND finished_at < $1";

const countOf = async (db: Db, select: string, params: unknown[]): Promise<number> =>
  num((await db.get<Row>(`SELECT COUNT(*) AS n FROM (${select}) prunable`, params))?.n ?? 0);

/** The agent's own messages: those it sent and those delivered to it (pending or acked), as seenBy counts them. */
const MINE = `SELECT id FROM messages WHERE sender = $1
  UNION SELECT message_id FROM deliveries WHERE recipient = $1 AND state IN ('pending', 'acked')`;
const MAIL_COLUMNS = "m.id, m.sender, m.kind, m.body, m.thread_id, m.reply_to, m.channel, m.created_at";
const MAIL_FIRST = `SELECT ${MAIL_COLUMNS} FROM (${MINE}) mine JOIN messages m ON m.id = mine.id
  WHERE ${ofCurrentHolder("$1")} ORDER BY m.created_at, m.id LIMIT $2`;
const MAIL_AFTER = `SELECT ${MAIL_COLUMNS} FROM (${MINE}) mine JOIN messages m ON m.id = mine.id
  WHERE ${ofCurrentHolder("$1")} AND (m.created_at > $3 OR (m.created_at = $3 AND m.id > $4))
  ORDER BY m.created_at, m.id LIMIT $2`;

const toMail = (r: Row): MailRecord => ({
  id: str(r.id),
  sender: str(r.sender),
  kind: str(r.kind),
  body: str(r.body),
  threadId: strOrNull(r.thread_id),
  replyTo: strOrNull(r.reply_to),
  channel: strOrNull(r.channel),
  createdAt: num(r.created_at),
});

/** Each message's deliveries: the agent's own, and every recipient's of the messages it sent. */
const withDeliveries = async (db: Db, agentId: string, mail: MailRecord[]): Promise<MailRecord[]> => {
  if (mail.length === 0) return mail;
  const ids = mail.map((m) => m.id);
  const rows = await db.all<Row>(
    `SELECT message_id, recipient, state, acked_at FROM deliveries WHERE message_id IN (${placeholders(ids.length)})
      ORDER BY message_id, recipient`,
    ids,
  );
  return mail.map((m) => {
    const own = rows.find((r) => str(r.message_id) === m.id && str(r.recipient) === agentId);
    const received = own && (str(own.state) === "pending" || str(own.state) === "acked");
    return {
      ...m,
      ...(received ? { delivery: { state: str(own.state), ackedAt: numOrNull(own.acked_at) } } : {}),
      ...(m.sender === agentId
        ? {
            recipients: rows
              .filter((r) => str(r.message_id) === m.id)
              .map((r) => ({ recipient: str(r.recipient), state: str(r.state) })),
          }
        : {}),
    };
  });
};

export const adminRepo = (db: Db): AdminRepo => ({
  pruneCounts: async ({ before, keyedBefore }): Promise<PruneCounts> => ({
    messages: await countOf(db, PRUNABLE_MESSAGES, [before, keyedBefore]),
    runTails: await countOf(db, ENDED_RUNS_WITH_TAILS, [before]),
    webhookEvents: await countOf(db, ENDED_WEBHOOK_EVENTS, [before]),
  }),
  pruneMessages: async ({ before, keyedBefore }, limit, after) => {
    const rows = await db.all<Row>(PRUNABLE_BATCH, [before, keyedBefore, limit, after?.createdAt ?? -1, after?.id ?? ""]);
    const ids = rows.map((r) => str(r.id));
    const lastRow = rows.at(-1);
    if (!lastRow) return { deleted: 0, selected: 0 };
    const last = { createdAt: num(lastRow.created_at), id: str(lastRow.id) };
    const list = placeholders(ids.length);
    if (db.dialect === "sqlite") {
      // SQLite's word index is a table of its own (migrations 011, 014), kept by an insert trigger only.
      await db.run(
        `DELETE FROM message_search WHERE rowid IN (SELECT search_rowid FROM message_search_rows WHERE message_id IN (${list}))`,
        ids,
      );
      await db.run(`DELETE FROM message_search_rows WHERE message_id IN (${list})`, ids);
    }
    // Deliveries go by ON DELETE CASCADE. The tests are repeated in the delete, so a message that gained a pending
    // delivery or a newer thread message since the read above stays.
    const deleted = await db.run(
      `DELETE FROM messages WHERE id IN (${placeholders(ids.length, 3)})
        AND ${nothingWaitsOn("messages")}`,
      [before, keyedBefore, ...ids],
    );
    return { deleted, selected: ids.length, last };
  },
  pruneRunTails: ({ before }, limit) =>
    db.run(
      `UPDATE automation_runs SET stdout_tail = NULL, stderr_tail = NULL
        WHERE id IN (${ENDED_RUNS_WITH_TAILS} ORDER BY COALESCE(finished_at, created_at), id LIMIT $2)`,
      [before, limit],
    ),
  mailPage: async (agentId, after, limit) => {
    const rows = after
      ? await db.all<Row>(MAIL_AFTER, [agentId, limit, after.createdAt, after.id])
      : await db.all<Row>(MAIL_FIRST, [agentId, limit]);
    return withDeliveries(db, agentId, rows.map(toMail));
  },
});
