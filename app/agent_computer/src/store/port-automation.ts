// The automation part of the store port: jobs, triggers, firings, runs with fenced attempts, worker
// environments and live workers. Domain-level operations; the SQL lives in store/sql/automation-*.ts.

export type JobState = "active" | "cancelled";

export interface JobRecord {
  id: string;
  owner: string;
  label: string;
  dir: string;
  wakeOnFailure: boolean;
  timeoutSeconds: number;
  state: JobState;
  createdAt: number;
  cancelledAt: number | null;
}

export type TriggerKind = "checkback" | "cron" | "webhook";
export type TriggerState = "active" | "consumed" | "cancelled";
export type WebhookProvider = "standard" | "github";

export interface TriggerRecord {
  id: string;
  kind: TriggerKind;
  owner: string;
  jobId: string | null;
  label: string | null;
  state: TriggerState;
  /** Checkback: when it is due; cron: the next tick. Null for webhooks and ended triggers. */
  dueAt: number | null;
  cronExpr: string | null;
  tz: string | null;
  misfireWindowSeconds: number | null;
  provider: WebhookProvider | null;
  /** The webhook signing secret (a verification key, so it is stored); never listed or logged. */
  secret: string | null;
  maxBodyBytes: number | null;
  fireCount: number;
  skippedCount: number;
  lastFiredAt: number | null;
  createdAt: number;
  endedAt: number | null;
}

export type FiringOutcome = "run" | "wake" | "missed" | "job_cancelled";

export interface FiringRecord {
  triggerId: string;
  /** "" for a checkback, the tick in epoch ms for cron, the delivery id for a webhook. */
  fireKey: string;
  outcome: FiringOutcome;
  scheduledFor: number | null;
  skippedTicks: number;
  runId: string | null;
  messageId: string | null;
  firedAt: number;
}

export type RunState = "queued" | "running" | "succeeded" | "failed" | "cancelled";
export type TriggerOrigin = TriggerKind | "manual";

export interface NewRun {
  id: string;
  jobId: string;
  owner: string;
  triggerId: string | null;
  triggerKind: TriggerOrigin;
  fireKey: string | null;
  /** The CloudEvents 1.0 envelope, as JSON text. */
  event: string;
  createdAt: number;
}

export interface RunRecord extends NewRun {
  state: RunState;
  attempt: number;
  leaseExpiresAt: number | null;
  workerId: string | null;
  emittedCount: number;
  exitCode: number | null;
  signal: string | null;
  errorKind: string | null;
  error: string | null;
  stdoutTail: string | null;
  stderrTail: string | null;
  startedAt: number | null;
  finishedAt: number | null;
}

/** The identity of one attempt; every write of an attempt is checked against all three. */
export interface Fence {
  runId: string;
  attempt: number;
  leaseToken: string;
}

export interface ClaimedRun {
  run: RunRecord;
  fence: Fence;
}

export interface RunOutcome {
  state: "succeeded" | "failed";
  exitCode: number | null;
  signal: string | null;
  errorKind: string | null;
  error: string | null;
  stdoutTail: string;
  stderrTail: string;
  finishedAt: number;
}

export interface AttemptRecord {
  runId: string;
  attempt: number;
  workerId: string;
  startedAt: number;
  endedAt: number | null;
  outcome: string | null;
}

export interface EnvEntry {
  key: string;
  value: string;
  updatedAt: number;
}

/** A running worker as every host sees it: its id, host name and URL (its pid would mean nothing elsewhere). */
export interface WorkerRecord {
  id: string;
  host: string;
  url: string;
  startedAt: number;
  lastSeenAt: number;
  stoppedAt: number | null;
}

/** Everything automation needs from the store, inside one transaction. */
export interface AutomationRepo {
  insertJob(job: JobRecord): Promise<void>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** Newest first; owner null lists every owner's (the console). */
  /** Newest first; with `before`, only jobs older than that one. */
  listJobs(owner: string | null, limit: number, before?: { createdAt: number; id: string }): Promise<JobRecord[]>;
  /** How many of the owner's jobs are older than `before`. */
  countJobs(owner: string, before: { createdAt: number; id: string }): Promise<number>;
  /** active → cancelled; false when it was not active. */
  cancelJob(id: string, now: number): Promise<boolean>;

  insertTrigger(trigger: TriggerRecord): Promise<void>;
  /** With lock, the row stays locked until the transaction ends (write transactions only). */
  getTrigger(id: string, lock?: boolean): Promise<TriggerRecord | undefined>;
  /** Newest first; owner null lists every owner's (the console). */
  /** Newest first; with `before`, only triggers older than that one. */
  listTriggers(
    owner: string | null,
    includeEnded: boolean,
    limit: number,
    before?: { createdAt: number; id: string },
  ): Promise<TriggerRecord[]>;
  /** How many of the owner's triggers (active ones unless includeEnded) are older than `before`. */
  countTriggers(owner: string, includeEnded: boolean, before: { createdAt: number; id: string }): Promise<number>;
  /** The ids of a job's active triggers: what cancelTriggers({ jobId }) would change now. */
  activeTriggerIdsOf(jobId: string): Promise<string[]>;
  /** active → cancelled for one trigger, or for every active trigger of a job; returns the ids changed. */
  cancelTriggers(selector: { id: string } | { jobId: string }, now: number): Promise<string[]>;
  /** Active triggers due at `now`, oldest first, locked for this transaction (skipping rows others hold). */
  claimDueTriggers(now: number, limit: number): Promise<TriggerRecord[]>;
  /** The earliest due time of any active trigger, so the scheduler can sleep exactly until then. */
  nextDueAt(): Promise<number | null>;
  /** Compare-and-set: the checkback is still active → consumed. */
  settleCheckback(id: string, now: number): Promise<boolean>;
  /** Compare-and-set on the tick: moves the schedule from `expectedDueAt` to `nextDueAt`. */
  advanceCron(
    id: string,
    change: { expectedDueAt: number; nextDueAt: number; fired: boolean; skipped: number; now: number },
  ): Promise<boolean>;
  countWebhookDelivery(id: string, now: number): Promise<void>;
  /** Inserts the firing unless (trigger, fire key) exists: false means it was already consumed. */
  recordFiring(firing: FiringRecord): Promise<boolean>;
  firingsOf(triggerId: string, limit: number): Promise<FiringRecord[]>;

  insertRun(run: NewRun): Promise<void>;
  getRun(id: string): Promise<RunRecord | undefined>;
  /** Newest first; with `before`, only runs older than that one. */
  runsOfJob(jobId: string, limit: number, before?: { createdAt: number; id: string }): Promise<RunRecord[]>;
  /** How many of the job's runs are older than `before`. */
  countRunsOfJob(jobId: string, before: { createdAt: number; id: string }): Promise<number>;
  /** How many runs of the job are queued: what cancelQueuedRuns would change now. */
  queuedRunCount(jobId: string): Promise<number>;
  cancelQueuedRuns(jobId: string, now: number): Promise<number>;
  /** Whether claimRuns/failAbandonedRuns would find anything (a read, so idle polling takes no write lock). */
  claimableRunExists(now: number): Promise<boolean>;
  /** The earliest lease expiry of a running run (null when none runs): when the next rescue may fall due. */
  nextLeaseLapse(): Promise<number | null>;
  /** Runs whose lease expired on their last allowed attempt: marked failed (worker_lost) and returned. */
  failAbandonedRuns(now: number, maxAttempts: number): Promise<RunRecord[]>;
  /** Queued runs and runs whose lease expired, each given a new attempt number and lease token. */
  claimRuns(input: { workerId: string; now: number; leaseMs: number; limit: number; newToken(): string }): Promise<ClaimedRun[]>;
  attemptsOf(runId: string): Promise<AttemptRecord[]>;
  /** The fenced writes: each returns false when the attempt no longer holds the run. */
  heartbeat(fence: Fence, leaseExpiresAt: number): Promise<boolean>;
  recordEmit(fence: Fence): Promise<boolean>;
  finishRun(fence: Fence, outcome: RunOutcome): Promise<boolean>;
  releaseLease(fence: Fence, now: number): Promise<boolean>;

  setEnv(owner: string, entries: readonly { key: string; value: string }[], now: number): Promise<void>;
  unsetEnv(owner: string, keys: readonly string[]): Promise<string[]>;
  listEnv(owner: string): Promise<EnvEntry[]>;

  upsertWorker(worker: WorkerRecord): Promise<void>;
  touchWorker(id: string, now: number, stopped: boolean): Promise<void>;
  liveWorkers(seenSince: number): Promise<WorkerRecord[]>;

  /** A wake-up hint for workers (PostgreSQL NOTIFY on commit; nothing on SQLite). Polling stays the truth. */
  hintWorkers(): Promise<void>;
}

/** The channel workers LISTEN on; a notification only means "look again now". */
export const AUTOMATION_CHANNEL = "agent_computer_automation";
