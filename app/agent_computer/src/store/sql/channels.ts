import type { ChannelPost, ChannelRecord, ChannelRepo } from "../port.ts";
import { type Db, num, type Row } from "./db.ts";

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
  }));
};

export const channelRepo = (db: Db): ChannelRepo => ({
  createChannel: async (name, createdBy, now) =>
    (await db.run("INSERT INTO channels (name, created_by, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING", [
      name,
      createdBy,
      now,
    ])) === 1,
  getChannel: async (name) => (await withMembers(db, await db.all<Row>("SELECT * FROM channels WHERE name = $1", [name])))[0],
  listChannels: async (agentId) =>
    withMembers(
      db,
      agentId === undefined
        ? await db.all<Row>("SELECT * FROM channels ORDER BY name")
        : await db.all<Row>(
            "SELECT c.* FROM channels c JOIN channel_members m ON m.channel = c.name WHERE m.agent_name = $1 ORDER BY c.name",
            [agentId],
          ),
    ),
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
  posts: async (name, limit) =>
    (
      await db.all<Row>(
        `SELECT id, sender, body, created_at FROM (
           SELECT id, sender, body, created_at FROM messages WHERE channel = $1 ORDER BY created_at DESC, id DESC LIMIT $2
         ) recent ORDER BY created_at, id`,
        [name, limit],
      )
    ).map(
      (r): ChannelPost => ({ id: String(r.id), sender: String(r.sender), body: String(r.body), createdAt: num(r.created_at) }),
    ),
});
