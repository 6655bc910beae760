// A broadcast's statements: set-based, so their number does not grow with the number of recipients. The audience
// (live sessions the filters select) and the reach rule (REFUSES, the text every query of the rule uses) are SQL,
// so one INSERT … SELECT delivers to every agent that accepts the sender.
import type { BroadcastAudience, BroadcastOps, MeshRepo } from "../port.ts";
import type { Db, Row } from "./db.ts";
import { num, numOrNull, str, strOrNull } from "./db.ts";
import { REFUSAL_TABLES, REFUSES } from "./mesh-contacts.ts";
import { liveAt } from "./mesh-deliveries.ts";

interface Where {
  sql: string;
  params: unknown[];
}

/**
 * The sessions `s` a broadcast selects, its placeholders numbered from `first`: the sender's is `$first`. Only the
 * filters given become conditions, so each shape of query keeps its own plan.
 */
const audienceWhere = (db: Db, a: BroadcastAudience, now: number, first: number): Where => {
  const params: unknown[] = [a.sender, now];
  const next = (value: unknown): string => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  const conditions = [liveAt(`$${first + 1}`, "s."), `s.agent_name <> $${first}`];
  if (a.role !== undefined) conditions.push(`s.role = ${next(a.role)}`);
  if (a.repo !== undefined) conditions.push(`s.repo = ${next(a.repo)}`);
  for (const capability of a.capabilities ?? []) {
    const cap = next(capability);
    conditions.push(
      db.dialect === "postgres"
        ? `s.caps::jsonb @> jsonb_build_array(${cap}::text)`
        : `EXISTS (SELECT 1 FROM json_each(s.caps) j WHERE j.value = ${cap})`,
    );
  }
  return { sql: conditions.join(" AND "), params };
};

/**
 * Whether the agent of session `s` refuses `sender` (the reach rule). The agents that refuse the sender are found
 * once, among the policy rows, and the selection is matched against them: its cost does not grow per recipient.
 */
const refusedBy = (sender: string): string =>
  `s.agent_name IN (SELECT p.agent_name FROM ${REFUSAL_TABLES(sender)} WHERE ${REFUSES(sender)})`;

/**
 * PostgreSQL, one statement: the audience with the rule's answer for each, the agents' rows (the sender's and the
 * audience's) locked in the one lock order, a delivery on the next inbox number of each that accepts, those numbers
 * taken, and every selected agent answered. $1 is the message.
 */
const postgresDeliverSql = (where: string): string => `WITH audience AS MATERIALIZED (
    SELECT s.agent_name AS name, s.id AS session_id, ${refusedBy("$2")} AS refused FROM sessions s WHERE ${where}),
  locked AS MATERIALIZED (SELECT a.name, a.last_seq, a.host_id FROM agents a
    WHERE a.name = $2 OR a.name IN (SELECT name FROM audience) ORDER BY a.name COLLATE "C" FOR NO KEY UPDATE),
  delivered AS (INSERT INTO deliveries (message_id, recipient, seq, state, session_id)
    SELECT $1, au.name, l.last_seq + 1, 'pending', au.session_id FROM audience au JOIN locked l ON l.name = au.name
    WHERE NOT au.refused RETURNING recipient, seq),
  numbered AS (UPDATE agents a SET last_seq = d.seq FROM delivered d WHERE a.name = d.recipient)
  SELECT au.name, au.session_id, l.host_id, d.seq FROM audience au JOIN locked l ON l.name = au.name
    LEFT JOIN delivered d ON d.recipient = au.name ORDER BY au.name COLLATE "C"`;

/** SQLite (one writer at a time, so the three statements see one state): deliver, number, answer. $1 is the message. */
const sqliteDeliverSql = (where: string) => ({
  deliver: `INSERT INTO deliveries (message_id, recipient, seq, state, session_id)
    SELECT $1, s.agent_name, a.last_seq + 1, 'pending', s.id FROM sessions s JOIN agents a ON a.name = s.agent_name
    WHERE ${where} AND NOT ${refusedBy("$2")}`,
  number: "UPDATE agents SET last_seq = last_seq + 1 WHERE name IN (SELECT recipient FROM deliveries WHERE message_id = $1)",
  answer: `SELECT s.agent_name AS name, s.id AS session_id, a.host_id, d.seq FROM sessions s JOIN agents a ON a.name = s.agent_name
    LEFT JOIN deliveries d ON d.message_id = $1 AND d.recipient = s.agent_name WHERE ${where} ORDER BY s.agent_name`,
});

const SUBSCRIBERS_SQL = `SELECT d.recipient, e.id FROM deliveries d JOIN webhook_endpoints e ON e.owner = d.recipient
  WHERE d.message_id = $1 AND e.state = 'active' AND e.events LIKE '%,message,%' ORDER BY d.recipient, e.id`;

/** Name order: byte order on both stores (agent names are ASCII), as storeBroadcast answers. */
const byteOrder = (db: Db): string => (db.dialect === "postgres" ? ' COLLATE "C"' : "");

const PAGE_COLUMNS = `SELECT d.recipient, a.host_id, d.seq, d.session_id, COUNT(*) OVER () AS following FROM deliveries d
  JOIN messages m ON m.id = d.message_id JOIN agents a ON a.name = d.recipient WHERE d.message_id = $1 AND m.sender = $2`;

export const broadcastOps = (
  db: Db,
  insertMessage: MeshRepo["insertMessage"],
  presence: Pick<MeshRepo, "touchAgent" | "extendSession">,
): BroadcastOps => ({
  countAudience: async (audience, now) => {
    const where = audienceWhere(db, audience, now, 1);
    const row = await db.get<Row>(`SELECT COUNT(*) AS n FROM sessions s WHERE ${where.sql}`, where.params);
    return num(row?.n ?? 0);
  },
  storeBroadcast: async ({ message, audience, presence: owed, now }) => {
    await insertMessage(message);
    const where = audienceWhere(db, audience, now, 2);
    const params = [message.id, ...where.params];
    let rows: Row[];
    if (db.dialect === "postgres") {
      // The planner's guess for a statement over CTEs runs to millions of rows, past the JIT thresholds, and
      // compiling it costs seconds for a statement that runs in milliseconds; off for the rest of this transaction.
      await db.run("SET LOCAL jit = off");
      rows = await db.all<Row>(postgresDeliverSql(where.sql), params);
    } else {
      const sql = sqliteDeliverSql(where.sql);
      await db.run(sql.deliver, params);
      await db.run(sql.number, [message.id]);
      rows = await db.all<Row>(sql.answer, params);
    }
    // After the statement that took the sender's row in the lock order.
    if (owed.touch) await presence.touchAgent(owed.agentId, now);
    if (owed.extend) await presence.extendSession(owed.agentId, now);
    const subscribers = new Map<string, string[]>();
    for (const r of await db.all<Row>(SUBSCRIBERS_SQL, [message.id])) {
      const list = subscribers.get(str(r.recipient)) ?? [];
      list.push(str(r.id));
      subscribers.set(str(r.recipient), list);
    }
    return rows.map((r) => ({
      agentId: str(r.name),
      hostId: strOrNull(r.host_id),
      sessionId: str(r.session_id),
      seq: numOrNull(r.seq),
      subscribers: subscribers.get(str(r.name)) ?? [],
    }));
  },
  deliveriesPage: async (sender, messageId, after, limit) => {
    const c = byteOrder(db);
    const rows =
      after === null
        ? await db.all<Row>(`${PAGE_COLUMNS} ORDER BY d.recipient${c} LIMIT $3`, [messageId, sender, limit])
        : await db.all<Row>(`${PAGE_COLUMNS} AND d.recipient${c} > $3 ORDER BY d.recipient${c} LIMIT $4`, [
            messageId,
            sender,
            after,
            limit,
          ]);
    const entries = rows.map((r) => ({
      agentId: str(r.recipient),
      hostId: strOrNull(r.host_id),
      seq: num(r.seq),
      reached: r.session_id != null,
    }));
    return { entries, following: rows[0] ? num(rows[0].following) : 0 };
  },
});
