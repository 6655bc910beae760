// Row → record mappers for the automation tables (PostgreSQL returns BIGINT as strings; num() evens that out).
import type { AttemptRecord, FiringRecord, JobRecord, RunRecord, TriggerRecord, WorkerRecord } from "../port-automation.ts";
import { num, numOrNull, type Row, str, strOrNull } from "./db.ts";

export const toJob = (r: Row): JobRecord => ({
  id: str(r.id),
  owner: str(r.owner),
  label: str(r.label),
  dir: str(r.dir),
  wakeOnFailure: num(r.wake_on_failure) === 1,
  timeoutSeconds: num(r.timeout_seconds),
  state: str(r.state) as JobRecord["state"],
  createdAt: num(r.created_at),
  cancelledAt: numOrNull(r.cancelled_at),
});

export const toTrigger = (r: Row): TriggerRecord => ({
  id: str(r.id),
  kind: str(r.kind) as TriggerRecord["kind"],
  owner: str(r.owner),
  jobId: strOrNull(r.job_id),
  label: strOrNull(r.label),
  state: str(r.state) as TriggerRecord["state"],
  dueAt: numOrNull(r.due_at),
  cronExpr: strOrNull(r.cron_expr),
  tz: strOrNull(r.tz),
  misfireWindowSeconds: numOrNull(r.misfire_window_seconds),
  provider: strOrNull(r.provider) as TriggerRecord["provider"],
  secret: strOrNull(r.secret),
  maxBodyBytes: numOrNull(r.max_body_bytes),
  fireCount: num(r.fire_count),
  skippedCount: num(r.skipped_count),
  lastFiredAt: numOrNull(r.last_fired_at),
  createdAt: num(r.created_at),
  endedAt: numOrNull(r.ended_at),
});

export const toFiring = (r: Row): FiringRecord => ({
  triggerId: str(r.trigger_id),
  fireKey: str(r.fire_key),
  outcome: str(r.outcome) as FiringRecord["outcome"],
  scheduledFor: numOrNull(r.scheduled_for),
  skippedTicks: num(r.skipped_ticks),
  runId: strOrNull(r.run_id),
  messageId: strOrNull(r.message_id),
  firedAt: num(r.fired_at),
});

export const RUN_COLUMNS =
  "id, job_id, owner, trigger_id, trigger_kind, fire_key, event, state, attempt, lease_expires_at, worker_id, emitted_count, " +
  "exit_code, signal, error_kind, error, stdout_tail, stderr_tail, created_at, started_at, finished_at";

export const toRun = (r: Row): RunRecord => ({
  id: str(r.id),
  jobId: str(r.job_id),
  owner: str(r.owner),
  triggerId: strOrNull(r.trigger_id),
  triggerKind: str(r.trigger_kind) as RunRecord["triggerKind"],
  fireKey: strOrNull(r.fire_key),
  event: str(r.event),
  state: str(r.state) as RunRecord["state"],
  attempt: num(r.attempt),
  leaseExpiresAt: numOrNull(r.lease_expires_at),
  workerId: strOrNull(r.worker_id),
  emittedCount: num(r.emitted_count),
  exitCode: numOrNull(r.exit_code),
  signal: strOrNull(r.signal),
  errorKind: strOrNull(r.error_kind),
  error: strOrNull(r.error),
  stdoutTail: strOrNull(r.stdout_tail),
  stderrTail: strOrNull(r.stderr_tail),
  createdAt: num(r.created_at),
  startedAt: numOrNull(r.started_at),
  finishedAt: numOrNull(r.finished_at),
});

export const toAttempt = (r: Row): AttemptRecord => ({
  runId: str(r.run_id),
  attempt: num(r.attempt),
  workerId: str(r.worker_id),
  startedAt: num(r.started_at),
  endedAt: numOrNull(r.ended_at),
  outcome: strOrNull(r.outcome),
});

export const toWorker = (r: Row): WorkerRecord => ({
  id: str(r.id),
  host: str(r.host),
  url: str(r.url),
  startedAt: num(r.started_at),
  lastSeenAt: num(r.last_seen_at),
  stoppedAt: numOrNull(r.stopped_at),
});
