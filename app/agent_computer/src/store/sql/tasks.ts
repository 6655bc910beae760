import {
  TASK_PRIORITIES,
  type TaskFilter,
  type TaskPriority,
  type TaskRecord,
  type TaskRepo,
  type TaskState,
} from "../port-identity.ts";
import { type Db, jsonList, num, type Row, str, strOrNull } from "./db.ts";

// The rank column lets SQL order the queue by urgency without knowing the priority names.
const rank = (priority: TaskPriority): number => TASK_PRIORITIES.indexOf(priority);

const toTask = (r: Row): TaskRecord => ({
  id: str(r.id),
  title: str(r.title),
  body: str(r.body),
  requiredCaps: jsonList(r.required_caps),
  priority: str(r.priority) as TaskPriority,
  state: str(r.state) as TaskState,
  poster: str(r.poster),
  assignee: strOrNull(r.assignee),
  result: strOrNull(r.result),
  reason: strOrNull(r.reason),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
  version: num(r.version),
});

export const tasksRepo = (db: Db): TaskRepo => ({
  insert: async (t) => {
    await db.run(
      `INSERT INTO tasks (id, title, body, required_caps, priority, priority_rank, state, poster, assignee, result, reason,
         version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        t.id,
        t.title,
        t.body,
        JSON.stringify(t.requiredCaps),
        t.priority,
        rank(t.priority),
        t.state,
        t.poster,
        t.assignee,
        t.result,
        t.reason,
        t.version,
        t.createdAt,
        t.updatedAt,
      ],
    );
  },
  get: async (id) => {
    const row = await db.get<Row>("SELECT * FROM tasks WHERE id = $1", [id]);
    return row ? toTask(row) : undefined;
  },
  change: async (id, expectedVersion, c) => {
    const row = await db.get<Row>(
      `UPDATE tasks SET state = $3, assignee = $4, result = $5, reason = $6, updated_at = $7, version = version + 1
       WHERE id = $1 AND version = $2 RETURNING *`,
      [id, expectedVersion, c.state, c.assignee, c.result, c.reason, c.now],
    );
    return row ? toTask(row) : undefined;
  },
  queued: async (limit) =>
    (
      await db.all<Row>("SELECT * FROM tasks WHERE state = 'queued' ORDER BY priority_rank DESC, created_at, id LIMIT $1", [
        limit,
      ])
    ).map(toTask),
  openLoad: async () => {
    const rows = await db.all<Row>(
      "SELECT assignee, COUNT(*) AS n FROM tasks WHERE state IN ('assigned', 'accepted') GROUP BY assignee",
    );
    return new Map(rows.map((r) => [str(r.assignee), num(r.n)]));
  },
  openAssignedTo: async (assignee) =>
    (
      await db.all<Row>("SELECT * FROM tasks WHERE assignee = $1 AND state IN ('assigned', 'accepted') ORDER BY created_at, id", [
        assignee,
      ])
    ).map(toTask),
  list: async (filter) => {
    const { where, params } = taskWhere(filter);
    params.push(filter.limit);
    const sql = `SELECT * FROM tasks${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`;
    return (await db.all<Row>(sql, params)).map(toTask);
  },
  count: async (filter) => {
    const { where, params } = taskWhere(filter);
    return num((await db.get<Row>(`SELECT COUNT(*) AS n FROM tasks${where}`, params))?.n ?? 0);
  },
});

/** The WHERE clause of a task list: its party, states and keyset position. */
const taskWhere = (filter: Omit<TaskFilter, "limit">): { where: string; params: unknown[] } => {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.party !== undefined) {
    params.push(filter.party);
    // Of a name revoked without recovery, the next holder sees only what it posted or was given since it came.
    const since = `COALESCE((SELECT a.holder_since FROM agents a WHERE a.name = $${params.length}), 0)`;
    where.push(
      `((poster = $${params.length} AND created_at >= ${since}) OR (assignee = $${params.length} AND updated_at >= ${since}))`,
    );
  }
  if (filter.states && filter.states.length > 0) {
    const first = params.length + 1;
    params.push(...filter.states);
    where.push(`state IN (${filter.states.map((_, i) => `$${first + i}`).join(", ")})`);
  }
  if (filter.before) {
    const at = `$${params.push(filter.before.createdAt)}`;
    where.push(`(created_at < ${at} OR (created_at = ${at} AND id < $${params.push(filter.before.id)}))`);
  }
  return { where: where.length ? ` WHERE ${where.join(" AND ")}` : "", params };
};
