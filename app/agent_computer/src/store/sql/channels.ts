import type { ChannelPost, ChannelRecord, ChannelRepo } from "../port.ts";
import { type Db, num, numOrNull, type Row } from "./db.ts";

/** Ends, at $1, every channel with no members left (a leave, an unregistered or revoked member). */
export const MARK_EMPTIED_CHANNELS_SQL = `UPDATE channels SET emptied_at = $1
  WHERE emptied_at IS NULL AND NOT EXISTS (SELECT 1 FROM channel_members m WHERE m.channel = channels.name)`;

const withMembers = async (db: Db, rows: Row[]): Promise<ChannelRecord[]> => {
  if (rows.length === 0) return [];
  const names = rows.map((r) => String(r.name));
  const members = await db.all<Row>(
    `SELECT channel, agent_name FROM channel_members WHERE channel IN (${names.map((_, i) => `$${i + 1}`).join(", ")})
     ORDER BY agent_name`,
    names,
  );
  return rows.map((r) => ({
    name: String(r.name),
    createdBy: String(r.created_by),
    createdAt: num(r.created_at),
    members: members.filter((m) => m.channel === r.name).map((m) => String(m.agent_name)),
    emptiedAt: numOrNull(r.emptied_at),
  }));
};

/** The channels one agent belongs to (or every one that has not ended), after the one named `after`. */
const channelsOf = (agentId: string | undefined, after: string | undefined): { where: string; params: unknown[] } => {
  const params: unknown[] = [];
  const where = [
    agentId === undefined
      ? "c.emptied_at IS NULL"
      : `EXISTS (SELECT 1 FROM channel_members m WHERE m.channel = c.name AND m.agent_name = $${params.push(agentId)})`,
  ];
  if (after !== undefined) where.push(`c.name > $${params.push(after)}`);
  return { where: where.join(" AND "), params };
};

// A name taken again after its channel ended names a new channel: the posts of the old one are not its own.
const POSTS_OF_CHANNEL = "channel = $1 AND created_at >= (SELECT c.created_at FROM channels c WHERE c.name = $1)";
/** Older than the post at (`at`, `id`), by created_at and then id. */
const olderThan = (at: string, id: string): string => `(created_at < ${at} OR (created_at = ${at} AND id < ${id}))`;

export const channelRepo = (db: Db): ChannelRepo => ({
  createChannel: async (name, createdBy, now) =>
    (await db.run("INSERT INTO channels (name, created_by, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING", [
      name,
      createdBy,
      now,
    ])) === 1,
  markEmptied: async (now) => db.run(MARK_EMPTIED_CHANNELS_SQL, [now]),
  dropEnded: async (name, endedBefore) =>
    (await db.run("DELETE FROM channels WHERE name = $1 AND emptied_at IS NOT NULL AND emptied_at <= $2", [
      name,
      endedBefore,
    ])) === 1,
  getChannel: async (name) => (await withMembers(db, await db.all<Row>("SELECT * FROM channels WHERE name = $1", [name])))[0],
  listChannels: async (agentId, page = {}) => {
    const { where, params } = channelsOf(agentId, page.after);
    const limit = page.limit === undefined ? "" : ` LIMIT $${params.length + 1}`;
    const rows = await db.all<Row>(
      `SELECT c.* FROM channels c WHERE ${where} ORDER BY c.name${limit}`,
      page.limit === undefined ? params : [...params, page.limit],
    );
    return withMembers(db, rows);
  },
  countChannels: async (agentId, after) => {
    const { where, params } = channelsOf(agentId, after);
    return num((await db.get<Row>(`SELECT COUNT(*) AS n FROM channels c WHERE ${where}`, params))?.n ?? 0);
  },
  join: async (name, agentId, now) =>
    (await db.run(
      "INSERT INTO channel_members (channel, agent_name, joined_at) VALUES ($1, $2, $3) ON CONFLICT (channel, agent_name) DO NOTHING",
      [name, agentId, now],
    )) === 1,
  leave: async (name, agentId) =>
    (await db.run("DELETE FROM channel_members WHERE channel = $1 AND agent_name = $2", [name, agentId])) === 1,
  isMember: async (name, agentId) =>
    (await db.get<Row>("SELECT 1 AS member FROM channel_members WHERE channel = $1 AND agent_name = $2", [name, agentId])) !==
    undefined,
  posts: async (name, limit, before) =>
    (
      await db.all<Row>(
        `SELECT id, sender, body, created_at FROM messages WHERE ${POSTS_OF_CHANNEL}${before ? ` AND ${olderThan("$3", "$4")}` : ""}
         ORDER BY created_at DESC, id DESC LIMIT $2`,
        before ? [name, limit, before.createdAt, before.id] : [name, limit],
      )
    ).map(
      (r): ChannelPost => ({ id: String(r.id), sender: String(r.sender), body: String(r.body), createdAt: num(r.created_at) }),
    ),
  countPosts: async (name, before) =>
    num(
      (
        await db.get<Row>(`SELECT COUNT(*) AS n FROM messages WHERE ${POSTS_OF_CHANNEL} AND ${olderThan("$2", "$3")}`, [
          name,
          before.createdAt,
          before.id,
        ])
      )?.n ?? 0,
    ),
});
