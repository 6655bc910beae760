// SQL for the operator's overview (port-overview.ts), written once for both dialects ($n placeholders).
import type { DeliveryState } from "../port-mesh.ts";
import { OVERVIEW_NAMES, type OverviewChannel, type OverviewMessage, type OverviewRepo } from "../port-overview.ts";
import { type Db, num, type Row, str, strOrNull } from "./db.ts";
import { firstOfEach } from "./first-of-each.ts";
import { RELEASED_STATES, toClaim, toController } from "./herdr.ts";

const COLUMNS = "m.id, m.sender, m.kind, m.body, m.thread_id, m.reply_to, m.channel, m.created_at";

/** The page's messages with their first recipients (the reader's delivery among them), read in one more statement. */
const withRecipients = async (db: Db, rows: Row[], reader: string): Promise<OverviewMessage[]> => {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => str(r.id));
  const deliveries = await firstOfEach(db, OVERVIEW_NAMES, "deliveries", "message_id", "recipient", ", state", ids, reader);
  const byMessage = new Map<string, { list: OverviewMessage["recipients"]; total: number }>();
  for (const d of deliveries) {
    const entry = byMessage.get(str(d.key)) ?? { list: [], total: num(d.total) };
    entry.list.push({ agentId: str(d.name), state: str(d.state) as DeliveryState });
    byMessage.set(str(d.key), entry);
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
    recipients: byMessage.get(str(r.id))?.list ?? [],
    recipientCount: byMessage.get(str(r.id))?.total ?? 0,
  }));
};

/** The channels with their first members and how many they have. */
const withFirstMembers = async (db: Db, rows: Row[]): Promise<OverviewChannel[]> => {
  if (rows.length === 0) return [];
  const members = await firstOfEach(
    db,
    OVERVIEW_NAMES,
    "channel_members",
    "channel",
    "agent_name",
    "",
    rows.map((r) => str(r.name)),
  );
  return rows.map((r) => {
    const own = members.filter((m) => m.key === r.name);
    return {
      name: str(r.name),
      createdBy: str(r.created_by),
      createdAt: num(r.created_at),
      members: own.map((m) => str(m.name)),
      memberCount: own.length > 0 ? num(own[0]?.total) : 0,
    };
  });
};

export const overviewRepo = (db: Db): OverviewRepo => ({
  messages: async (before, limit, reader) =>
    withRecipients(
      db,
      before === undefined
        ? await db.all<Row>(`SELECT ${COLUMNS} FROM messages m ORDER BY m.id DESC LIMIT $1`, [limit])
        : await db.all<Row>(`SELECT ${COLUMNS} FROM messages m WHERE m.id < $1 ORDER BY m.id DESC LIMIT $2`, [before, limit]),
      reader,
    ),
  message: async (id, reader) =>
    (await withRecipients(db, await db.all<Row>(`SELECT ${COLUMNS} FROM messages m WHERE m.id = $1`, [id]), reader))[0],
  thread: async (threadId, after, limit, reader) =>
    withRecipients(
      db,
      await db.all<Row>(
        `SELECT ${COLUMNS} FROM messages m WHERE (m.thread_id = $1 OR m.id = $1) AND m.id > $2 ORDER BY m.id LIMIT $3`,
        [threadId, after ?? "", limit],
      ),
      reader,
    ),
  channels: async (limit) =>
    withFirstMembers(db, await db.all<Row>("SELECT * FROM channels WHERE emptied_at IS NULL ORDER BY name LIMIT $1", [limit])),
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
