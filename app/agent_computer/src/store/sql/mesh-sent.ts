// The sender's view of its messages: each with its first recipients and its recipients counted by state, read with
// a bounded number of rows per message however many agents a message went to.
import type { DeliveryRecord, DeliveryState, SentSummary } from "../port.ts";
import { type Db, num, numOrNull, placeholders, type Row, str, strOrNull } from "./db.ts";
import { firstOfEach } from "./first-of-each.ts";

const noCounts = (): Record<DeliveryState, number> => ({ pending: 0, acked: 0, expired_undelivered: 0, not_checked_in: 0 });

/** `rows` (messages) with their first `shown` deliveries by recipient and the count of all of them by state. */
export const withFirstRecipients = async (db: Db, rows: Row[], shown: number): Promise<SentSummary[]> => {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => str(r.id));
  const first = await firstOfEach(
    db,
    shown,
    "deliveries",
    "message_id",
    "recipient",
    ", seq, state, session_id, acked_at, closed_at",
    ids,
  );
  const counted = await db.all<Row>(
    `SELECT message_id, state, COUNT(*) AS n FROM deliveries WHERE message_id IN (${placeholders(ids.length)})
     GROUP BY message_id, state`,
    ids,
  );
  const recipients = new Map<string, DeliveryRecord[]>();
  for (const d of first) {
    const list = recipients.get(str(d.key)) ?? [];
    list.push({
      messageId: str(d.key),
      recipient: str(d.name),
      seq: num(d.seq),
      state: str(d.state) as DeliveryState,
      sessionId: strOrNull(d.session_id),
      ackedAt: numOrNull(d.acked_at),
      closedAt: numOrNull(d.closed_at),
    });
    recipients.set(str(d.key), list);
  }
  const counts = new Map<string, Record<DeliveryState, number>>();
  for (const c of counted) {
    const byState = counts.get(str(c.message_id)) ?? noCounts();
    byState[str(c.state) as DeliveryState] = num(c.n);
    counts.set(str(c.message_id), byState);
  }
  return rows.map((r) => ({
    id: str(r.id),
    kind: str(r.kind),
    body: str(r.body),
    threadId: strOrNull(r.thread_id),
    replyTo: strOrNull(r.reply_to),
    createdAt: num(r.created_at),
    idempotencyHash: strOrNull(r.idempotency_hash),
    recipients: recipients.get(str(r.id)) ?? [],
    recipientCounts: counts.get(str(r.id)) ?? noCounts(),
  }));
};
