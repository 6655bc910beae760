// Runs and their fenced attempts. Every write an attempt makes names (run, attempt, lease token) and
// requires state 'running'; zero rows changed means a newer attempt owns the run (the attempt is fenced).
import type { AutomationRepo, ClaimedRun, Fence } from "../port-automation.ts";
import { RUN_COLUMNS, toAttempt, toRun } from "./automation-rows.ts";
import { skipLocked } from "./automation-triggers.ts";
import { type Db, num, numOrNull, type Row } from "./db.ts";
import { newestFirst } from "./keyset.ts";
import { storableOrNull, storableText } from "./storable-text.ts";

type Runs = Pick<
  AutomationRepo,
  | "insertRun"
  | "getRun"
  | "runsOfJob"
  | "countRunsOfJob"
  | "queuedRunCount"
  | "cancelQueuedRuns"
  | "claimableRunExists"
  | "nextLeaseLapse"
  | "failAbandonedRuns"
  | "claimRuns"
  | "attemptsOf"
  | "heartbeat"
  | "recordEmit"
  | "finishRun"
  | "releaseLease"
>;

const FENCE = "id = $1 AND attempt = $2 AND lease_token = $3 AND state = 'running'";
const fenceParams = (f: Fence): unknown[] => [f.runId, f.attempt, f.leaseToken];

const endAttempt = (db: Db, f: Fence, now: number, outcome: string) =>
  db.run("UPDATE automation_attempts SET ended_at = $3, outcome = $4 WHERE run_id = $1 AND attempt = $2 AND ended_at IS NULL", [
    f.runId,
    f.attempt,
    now,
    outcome,
  ]);

export const runsRepo = (db: Db): Runs => ({
  insertRun: async (r) => {
    await db.run(
      `INSERT INTO automation_runs (id, job_id, owner, trigger_id, trigger_kind, fire_key, event, state, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8)`,
      [r.id, r.jobId, r.owner, r.triggerId, r.triggerKind, r.fireKey, r.event, r.createdAt],
    );
  },
  getRun: async (id) => {
    const row = await db.get<Row>(`SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = $1`, [id]);
    return row ? toRun(row) : undefined;
  },
  runsOfJob: async (jobId, limit, before) => {
    const { where, params } = newestFirst([["job_id = $", jobId]], before, [limit]);
    return (
      await db.all<Row>(`SELECT ${RUN_COLUMNS} FROM automation_runs ${where} ORDER BY created_at DESC, id DESC LIMIT $1`, params)
    ).map(toRun);
  },
  countRunsOfJob: async (jobId, before) => {
    const { where, params } = newestFirst([["job_id = $", jobId]], before, []);
    return num((await db.get<Row>(`SELECT COUNT(*) AS n FROM automation_runs ${where}`, params))?.n ?? 0);
  },
  queuedRunCount: async (jobId) =>
    num((await db.get<Row>("SELECT COUNT(*) AS n FROM automation_runs WHERE job_id = $1 AND state = 'queued'", [jobId]))?.n),
  cancelQueuedRuns: (jobId, now) =>
    db.run("UPDATE automation_runs SET state = 'cancelled', finished_at = $2 WHERE job_id = $1 AND state = 'queued'", [
      jobId,
      now,
    ]),
  claimableRunExists: async (now) =>
    (await db.get<Row>(
      `SELECT 1 AS found FROM automation_runs
       WHERE state = 'queued' OR (state = 'running' AND lease_expires_at < $1) LIMIT 1`,
      [now],
    )) !== undefined,
  nextLeaseLapse: async () =>
    numOrNull((await db.get<Row>("SELECT MIN(lease_expires_at) AS lapse FROM automation_runs WHERE state = 'running'"))?.lapse),
  failAbandonedRuns: async (now, maxAttempts) => {
    const rows = await db.all<Row>(
      `UPDATE automation_runs SET state = 'failed', error_kind = 'worker_lost', finished_at = $1, lease_token = NULL,
         lease_expires_at = NULL, error = 'the worker running attempt ' || attempt || ' was lost; no attempts left'
       WHERE state = 'running' AND lease_expires_at < $1 AND attempt >= $2 RETURNING ${RUN_COLUMNS}`,
      [now, maxAttempts],
    );
    for (const r of rows) {
      await db.run("UPDATE automation_attempts SET ended_at = $2, outcome = 'lost' WHERE run_id = $1 AND ended_at IS NULL", [
        r.id,
        now,
      ]);
    }
    return rows.map(toRun);
  },
  claimRuns: async ({ workerId, now, leaseMs, limit, newToken }) => {
    const queued = await db.all<Row>(
      `SELECT id FROM automation_runs WHERE state = 'queued' ORDER BY created_at, id LIMIT $1${skipLocked(db)}`,
      [limit],
    );
    const expired =
      queued.length < limit
        ? await db.all<Row>(
            `SELECT id FROM automation_runs WHERE state = 'running' AND lease_expires_at < $1
             ORDER BY lease_expires_at LIMIT $2${skipLocked(db)}`,
            [now, limit - queued.length],
          )
        : [];
    const claimed: ClaimedRun[] = [];
    for (const { id } of [...queued, ...expired]) {
      const leaseToken = newToken();
      const row = await db.get<Row>(
        `UPDATE automation_runs SET state = 'running', attempt = attempt + 1, lease_token = $2, lease_expires_at = $3,
           worker_id = $4, started_at = COALESCE(started_at, $5)
         WHERE id = $1 AND (state = 'queued' OR (state = 'running' AND lease_expires_at < $5)) RETURNING ${RUN_COLUMNS}`,
        [id, leaseToken, now + leaseMs, workerId, now],
      );
      if (!row) continue;
      const run = toRun(row);
      if (run.attempt > 1) {
        // A rescue: the previous attempt's worker is gone.
        await db.run("UPDATE automation_attempts SET ended_at = $2, outcome = 'lost' WHERE run_id = $1 AND ended_at IS NULL", [
          run.id,
          now,
        ]);
      }
      await db.run("INSERT INTO automation_attempts (run_id, attempt, worker_id, started_at) VALUES ($1, $2, $3, $4)", [
        run.id,
        run.attempt,
        workerId,
        now,
      ]);
      claimed.push({ run, fence: { runId: run.id, attempt: run.attempt, leaseToken } });
    }
    return claimed;
  },
  attemptsOf: async (runId) =>
    (await db.all<Row>("SELECT * FROM automation_attempts WHERE run_id = $1 ORDER BY attempt", [runId])).map(toAttempt),
  heartbeat: async (f, leaseExpiresAt) =>
    (await db.run(`UPDATE automation_runs SET lease_expires_at = $4 WHERE ${FENCE}`, [...fenceParams(f), leaseExpiresAt])) > 0,
  recordEmit: async (f) =>
    (await db.run(`UPDATE automation_runs SET emitted_count = emitted_count + 1 WHERE ${FENCE}`, fenceParams(f))) > 0,
  // Output tails and errors are untrusted bytes from the script; see storable-text.ts.
  finishRun: async (f, o) => {
    const changed = await db.run(
      `UPDATE automation_runs SET state = $4, exit_code = $5, signal = $6, error_kind = $7, error = $8, stdout_tail = $9,
         stderr_tail = $10, finished_at = $11, lease_token = NULL, lease_expires_at = NULL
       WHERE ${FENCE}`,
      [
        ...fenceParams(f),
        o.state,
        o.exitCode,
        o.signal,
        o.errorKind,
        storableOrNull(o.error),
        storableText(o.stdoutTail),
        storableText(o.stderrTail),
        o.finishedAt,
      ],
    );
    if (changed > 0) await endAttempt(db, f, o.finishedAt, o.state);
    return changed > 0;
  },
  releaseLease: async (f, now) => {
    const changed = await db.run(`UPDATE automation_runs SET lease_expires_at = $4 WHERE ${FENCE}`, [...fenceParams(f), now - 1]);
    if (changed > 0) await endAttempt(db, f, now, "released");
    return changed > 0;
  },
});
