// Jobs, triggers and firings. Consumption is guarded twice: a row lock (FOR UPDATE SKIP LOCKED on
// PostgreSQL, BEGIN IMMEDIATE on SQLite) and a compare-and-set, with the firings primary key as the last word.
import type { AutomationRepo } from "../port-automation.ts";
import { toFiring, toJob, toTrigger } from "./automation-rows.ts";
import { type Db, num, type Row } from "./db.ts";
import { newestFirst } from "./keyset.ts";

export const skipLocked = (db: Db): string => (db.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "");

type JobsAndTriggers = Pick<
  AutomationRepo,
  | "insertJob"
  | "getJob"
  | "listJobs"
  | "countJobs"
  | "cancelJob"
  | "insertTrigger"
  | "getTrigger"
  | "listTriggers"
  | "countTriggers"
  | "activeTriggerIdsOf"
  | "cancelTriggers"
  | "claimDueTriggers"
  | "nextDueAt"
  | "settleCheckback"
  | "advanceCron"
  | "countWebhookDelivery"
  | "recordFiring"
  | "firingsOf"
>;

const TRIGGER_COLUMNS =
  "id, kind, owner, job_id, label, state, due_at, cron_expr, tz, misfire_window_seconds, provider, secret, max_body_bytes, " +
  "fire_count, skipped_count, last_fired_at, created_at, ended_at";

export const jobsAndTriggers = (db: Db): JobsAndTriggers => ({
  insertJob: async (j) => {
    await db.run(
      `INSERT INTO automation_jobs (id, owner, label, dir, wake_on_failure, timeout_seconds, state, created_at, cancelled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [j.id, j.owner, j.label, j.dir, j.wakeOnFailure ? 1 : 0, j.timeoutSeconds, j.state, j.createdAt, j.cancelledAt],
    );
  },
  getJob: async (id) => {
    const row = await db.get<Row>("SELECT * FROM automation_jobs WHERE id = $1", [id]);
    return row ? toJob(row) : undefined;
  },
  listJobs: async (owner, limit, before) => {
    const { where, params } = newestFirst(owner === null ? [] : [["owner = $", owner]], before, [limit]);
    return (await db.all<Row>(`SELECT * FROM automation_jobs ${where} ORDER BY created_at DESC, id DESC LIMIT $1`, params)).map(
      toJob,
    );
  },
  countJobs: async (owner, before) => {
    const { where, params } = newestFirst([["owner = $", owner]], before, []);
    return num((await db.get<Row>(`SELECT COUNT(*) AS n FROM automation_jobs ${where}`, params))?.n ?? 0);
  },
  cancelJob: async (id, now) =>
    (await db.run("UPDATE automation_jobs SET state = 'cancelled', cancelled_at = $2 WHERE id = $1 AND state = 'active'", [
      id,
      now,
    ])) > 0,
  insertTrigger: async (t) => {
    await db.run(
      `INSERT INTO automation_triggers (${TRIGGER_COLUMNS}) VALUES (${Array.from({ length: 18 }, (_, i) => `$${i + 1}`).join(", ")})`,
      [
        t.id,
        t.kind,
        t.owner,
        t.jobId,
        t.label,
        t.state,
        t.dueAt,
        t.cronExpr,
        t.tz,
        t.misfireWindowSeconds,
        t.provider,
        t.secret,
        t.maxBodyBytes,
        t.fireCount,
        t.skippedCount,
        t.lastFiredAt,
        t.createdAt,
        t.endedAt,
      ],
    );
  },
  getTrigger: async (id, lock = false) => {
    const row = await db.get<Row>(`SELECT ${TRIGGER_COLUMNS} FROM automation_triggers WHERE id = $1${lock ? db.forUpdate : ""}`, [
      id,
    ]);
    return row ? toTrigger(row) : undefined;
  },
  listTriggers: async (owner, includeEnded, limit, before) => {
    const conditions: [string, unknown?][] = [...(owner === null ? [] : [["owner = $", owner] as [string, unknown]])];
    if (!includeEnded) conditions.push(["state = 'active'"]);
    const { where, params } = newestFirst(conditions, before, [limit]);
    return (
      await db.all<Row>(
        `SELECT ${TRIGGER_COLUMNS} FROM automation_triggers ${where} ORDER BY created_at DESC, id DESC LIMIT $1`,
        params,
      )
    ).map(toTrigger);
  },
  countTriggers: async (owner, includeEnded, before) => {
    const conditions: [string, unknown?][] = [["owner = $", owner]];
    if (!includeEnded) conditions.push(["state = 'active'"]);
    const { where, params } = newestFirst(conditions, before, []);
    return num((await db.get<Row>(`SELECT COUNT(*) AS n FROM automation_triggers ${where}`, params))?.n ?? 0);
  },
  activeTriggerIdsOf: async (jobId) =>
    (
      await db.all<Row>("SELECT id FROM automation_triggers WHERE job_id = $1 AND state = 'active' ORDER BY created_at, id", [
        jobId,
      ])
    ).map((r) => String(r.id)),
  cancelTriggers: async (selector, now) =>
    (
      await db.all<Row>(
        `UPDATE automation_triggers SET state = 'cancelled', due_at = NULL, ended_at = $2
         WHERE ${"id" in selector ? "id" : "job_id"} = $1 AND state = 'active' RETURNING id`,
        ["id" in selector ? selector.id : selector.jobId, now],
      )
    ).map((r) => String(r.id)),
  claimDueTriggers: async (now, limit) =>
    (
      await db.all<Row>(
        `SELECT ${TRIGGER_COLUMNS} FROM automation_triggers
         WHERE state = 'active' AND due_at IS NOT NULL AND due_at <= $1 ORDER BY due_at LIMIT $2${skipLocked(db)}`,
        [now, limit],
      )
    ).map(toTrigger),
  nextDueAt: async () => {
    const row = await db.get<Row>(
      "SELECT MIN(due_at) AS due FROM automation_triggers WHERE state = 'active' AND due_at IS NOT NULL",
    );
    return row?.due === null || row?.due === undefined ? null : Number(row.due);
  },
  settleCheckback: async (id, now) =>
    (await db.run(
      `UPDATE automation_triggers SET state = 'consumed', due_at = NULL, ended_at = $2, fire_count = fire_count + 1, last_fired_at = $2
       WHERE id = $1 AND kind = 'checkback' AND state = 'active'`,
      [id, now],
    )) > 0,
  advanceCron: async (id, c) =>
    (await db.run(
      `UPDATE automation_triggers SET due_at = $3, fire_count = fire_count + $4, skipped_count = skipped_count + $5,
         last_fired_at = COALESCE($6, last_fired_at)
       WHERE id = $1 AND kind = 'cron' AND state = 'active' AND due_at = $2`,
      [id, c.expectedDueAt, c.nextDueAt, c.fired ? 1 : 0, c.skipped, c.fired ? c.now : null],
    )) > 0,
  countWebhookDelivery: async (id, now) => {
    await db.run("UPDATE automation_triggers SET fire_count = fire_count + 1, last_fired_at = $2 WHERE id = $1", [id, now]);
  },
  recordFiring: async (f) =>
    (await db.run(
      `INSERT INTO automation_firings (trigger_id, fire_key, outcome, scheduled_for, skipped_ticks, run_id, message_id, fired_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (trigger_id, fire_key) DO NOTHING`,
      [f.triggerId, f.fireKey, f.outcome, f.scheduledFor, f.skippedTicks, f.runId, f.messageId, f.firedAt],
    )) > 0,
  firingsOf: async (triggerId, limit) =>
    (
      await db.all<Row>("SELECT * FROM automation_firings WHERE trigger_id = $1 ORDER BY fired_at DESC, fire_key DESC LIMIT $2", [
        triggerId,
        limit,
      ])
    ).map(toFiring),
});
