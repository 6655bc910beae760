// The JSON shapes the automation CLIs print (snake_case). A webhook secret never appears in any of them.
import type { AttemptRecord, JobRecord, RunRecord, TriggerRecord } from "../../store/port.ts";
import { iso, isoOrNull } from "../deps.ts";

export interface JobView {
  id: string;
  owner: string;
  label: string;
  dir: string;
  wake_on_failure: boolean;
  timeout_seconds: number;
  state: string;
  created_at: string;
  cancelled_at: string | null;
}

export const jobView = (j: JobRecord): JobView => ({
  id: j.id,
  owner: j.owner,
  label: j.label,
  dir: j.dir,
  wake_on_failure: j.wakeOnFailure,
  timeout_seconds: j.timeoutSeconds,
  state: j.state,
  created_at: iso(j.createdAt),
  cancelled_at: isoOrNull(j.cancelledAt),
});

export interface RunView {
  id: string;
  automation_job_id: string;
  state: string;
  attempt: number;
  trigger_kind: string;
  trigger_id: string | null;
  error_kind: string | null;
  error: string | null;
  exit_code: number | null;
  signal: string | null;
  emitted_count: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  stdout_tail: string | null;
  stderr_tail: string | null;
  attempts?: { attempt: number; worker_id: string; started_at: string; ended_at: string | null; outcome: string }[];
}

export const runView = (r: RunRecord, attempts?: AttemptRecord[]): RunView => ({
  id: r.id,
  automation_job_id: r.jobId,
  state: r.state,
  attempt: r.attempt,
  trigger_kind: r.triggerKind,
  trigger_id: r.triggerId,
  error_kind: r.errorKind,
  error: r.error,
  exit_code: r.exitCode,
  signal: r.signal,
  emitted_count: r.emittedCount,
  created_at: iso(r.createdAt),
  started_at: isoOrNull(r.startedAt),
  finished_at: isoOrNull(r.finishedAt),
  duration_ms: r.startedAt !== null && r.finishedAt !== null ? r.finishedAt - r.startedAt : null,
  stdout_tail: r.stdoutTail,
  stderr_tail: r.stderrTail,
  ...(attempts
    ? {
        attempts: attempts.map((a) => ({
          attempt: a.attempt,
          worker_id: a.workerId,
          started_at: iso(a.startedAt),
          ended_at: isoOrNull(a.endedAt),
          outcome: a.outcome ?? (a.attempt === r.attempt && r.state === "running" ? "running" : "lost"),
        })),
      }
    : {}),
});

export interface TriggerView {
  id: string;
  kind: string;
  label: string | null;
  automation_job_id: string | null;
  state: string;
  fire_count: number;
  last_fired_at: string | null;
  created_at: string;
  ended_at: string | null;
  due_at?: string | null;
  cron?: string;
  tz?: string;
  next_fire_at?: string | null;
  misfire_window_seconds?: number;
  skipped_count?: number;
  provider?: string;
  url?: string;
  max_body_bytes?: number;
}

/** The webhook endpoint URL served by the worker; the base comes from AGENT_COMPUTER_WORKER_URL. */
export const webhookUrl = (baseUrl: string, triggerId: string): string => `${baseUrl.replace(/\/+$/, "")}/hooks/${triggerId}`;

export const triggerView = (t: TriggerRecord, baseUrl: string): TriggerView => {
  const common = {
    id: t.id,
    kind: t.kind,
    label: t.label,
    automation_job_id: t.jobId,
    state: t.state,
    fire_count: t.fireCount,
    last_fired_at: isoOrNull(t.lastFiredAt),
    created_at: iso(t.createdAt),
    ended_at: isoOrNull(t.endedAt),
  };
  if (t.kind === "checkback") return { ...common, due_at: isoOrNull(t.dueAt) };
  if (t.kind === "cron") {
    return {
      ...common,
      cron: t.cronExpr ?? "",
      tz: t.tz ?? "UTC",
      next_fire_at: isoOrNull(t.dueAt),
      misfire_window_seconds: t.misfireWindowSeconds ?? 0,
      skipped_count: t.skippedCount,
    };
  }
  return { ...common, provider: t.provider ?? "standard", url: webhookUrl(baseUrl, t.id), max_body_bytes: t.maxBodyBytes ?? 0 };
};
