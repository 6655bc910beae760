// SQL for the operator's overview (port-overview.ts), written once for both dialects ($n placeholders).
import type { DeliveryState } from "../port-mesh.ts";
import type { OverviewMessage, OverviewRepo } from "../port-overview.ts";
import { withMembers } from "./channels.ts";
import { type Db, num, type Row, str, strOrNull } from "./db.ts";
import { RELEASED_STATES, toClaim, toController } from "./herdr.ts";

const COLUMNS = "m.id, m.sender, m.kind, m.body, m.thread_id, m.reply_to, m.channel, m.created_at";

/** The page's messages with their recipients, read in one more statement. */
const withRecipients = async (db: Db, rows: Row[]): Promise<OverviewMessage[]> => {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => str(r.id));
  const deliveries = await db.all<Row>(
    `SELECT message_id, recipient, state FROM deliveries WHERE message_id IN (${ids.map((_, i) => `$${i + 1}`).join(", ")})
     ORDER BY recipient`,
    ids,
  );
  const byMessage = new Map<string, OverviewMessage["recipients"]>();
  for (const d of deliveries) {
    const list = byMessage.get(str(d.message_id)) ?? [];
    list.push({ agentId: str(d.recipient), state: str(d.state) as DeliveryState });
    byMessage.set(str(d.message_id), list);
  }
  return rows.map((r) => ({
    id: str(r.id),
    sender: str(r.sender),
    kind: str(r.kind),
    body: str(r.body),
    threadId: strOrNull(r.thread_id),
    replyTo: strOrNull(r.reply_to),
    channel: strOrNull(r.channel),
    createdAt: num(r.created_at),
    recipients: byMessage.get(str(r.id)) ?? [],
  }));
};

export const overviewRepo = (db: Db): OverviewRepo => ({
  messages: async (before, limit) =>
    withRecipients(
      db,
      before === undefined
        ? await db.all<Row>(`SELECT ${COLUMNS} FROM messages m ORDER BY m.id DESC LIMIT $1`, [limit])
        : await db.all<Row>(`SELECT ${COLUMNS} FROM messages m WHERE m.id < $1 ORDER BY m.id DESC LIMIT $2`, [before, limit]),
    ),
  message: async (id) =>
    (await withRecipients(db, await db.all<Row>(`SELECT ${COLUMNS} FROM messages m WHERE m.id = $1`, [id])))[0],
  thread: async (threadId, after, limit) =>
    withRecipients(
      db,
      await db.all<Row>(
        `SELECT ${COLUMNS} FROM messages m WHERE (m.thread_id = $1 OR m.id = $1) AND m.id > $2 ORDER BY m.id LIMIT $3`,
        [threadId, after ?? "", limit],
      ),
    ),
  channels: async (limit) =>
    withMembers(db, await db.all<Row>("SELECT * FROM channels WHERE emptied_at IS NULL ORDER BY name LIMIT $1", [limit])),
  controllerLeases: async (limit) =>
    (
      await db.all<Row>("SELECT * FROM herdr_controller_leases WHERE state = 'active' ORDER BY controller_id LIMIT $1", [limit])
    ).map(toController),
  heldWriterClaims: async (limit) =>
    (
      await db.all<Row>(
        "SELECT * FROM herdr_writer_claims WHERE state NOT IN ($1, $2, $3) ORDER BY created_at DESC, lease_id DESC LIMIT $4",
        [...RELEASED_STATES, limit],
      )
    ).map(toClaim),
});
