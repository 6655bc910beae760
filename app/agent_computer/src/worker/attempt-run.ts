// One attempt, with its effects: files, the detached process group, bounded tails, heartbeats, the timeout
// that kills the whole group, and the fenced finish. The decisions are in attempt-plan.ts and attempt-result.ts.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildMcporterConfig, readSkillDeclarations } from "../adapters/mcporter/config.ts";
import { type ClaimedAttempt, heartbeatAttempt, releaseAttempt } from "../domain/automation/attempts.ts";
import { resolveJobDir } from "../domain/automation/job-dir.ts";
import { errorText } from "../errors.ts";
import type { RunOutcome } from "../store/port.ts";
import { type AttemptPlan, planAttempt } from "./attempt-plan.ts";
import { recordResult } from "./attempt-record.ts";
import { outcomeOf, type ProcessEnd } from "./attempt-result.ts";
import { watchLease } from "./lease-watch.ts";
import { TailBuffer } from "./tail.ts";
import type { WorkerContext } from "./worker-context.ts";

export const TAIL_BYTES = 8192;
const KILL_GRACE_MS = 2000;

export interface RunningAttempt {
  runId: string;
  done: Promise<void>;
  /** Kills the process group now (worker force stop); the run is released for another worker. */
  kill(): void;
}

const killGroup = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
};

const writePlanFiles = (plan: AttemptPlan): void => {
  for (const dir of plan.dirs) mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(plan.dirs[0] as string, 0o700);
  for (const file of plan.files) writeFileSync(file.path, file.content, { mode: file.mode });
};

const drain = async (stream: ReadableStream<Uint8Array>, tail: TailBuffer): Promise<void> => {
  for await (const chunk of stream) tail.push(chunk);
};

export const startAttempt = (ctx: WorkerContext, claimed: ClaimedAttempt, binDir: string): RunningAttempt => {
  const { run, fence, job, workerEnv } = claimed;
  const log = ctx.log.child("executor");
  const attemptDir = join(ctx.paths.runDir, "attempts", `${run.id}-${fence.attempt}`);
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let forced = false;
  const finish = async (outcome: RunOutcome): Promise<void> => {
    const recorded = await recordResult(ctx.deps, fence, outcome, log);
    if (recorded === "fenced")
      log.log("warn", "result refused: this attempt was fenced", { run_id: run.id, attempt: fence.attempt });
    log.log("info", "attempt finished", {
      run_id: run.id,
      attempt: fence.attempt,
      state: recorded === "stored_as_unstorable" ? "failed" : outcome.state,
      error_kind: recorded === "stored_as_unstorable" ? "result_unstorable" : outcome.errorKind,
    });
  };

  /** The attempt's files on disk (0700 dir, 0600 files), from the pure plan; Skills are read fresh. */
  const prepare = (dir: string, entry: string): AttemptPlan => {
    const { config, problems } = buildMcporterConfig(readSkillDeclarations(ctx.options.skillsDir));
    for (const problem of problems) log.log("warn", "skipped an MCP server declaration", { problem });
    const plan = planAttempt({
      run,
      fence,
      job,
      dir,
      entry,
      workerEnv,
      mcporter: config,
      install: ctx.install,
      binDir,
      attemptDir,
      emitUrl: `${ctx.localUrl()}/attempts/events`,
      home: ctx.env.HOME ?? "/",
    });
    writePlanFiles(plan);
    return plan;
  };

  const execute = async (): Promise<void> => {
    const resolved = resolveJobDir(job.dir);
    if (!resolved.ok) {
      return finish(
        outcomeOf({ kind: "not_started", errorKind: "job_dir_missing", error: resolved.problem }, "", "", ctx.deps.now()),
      );
    }
    const stdout = new TailBuffer(TAIL_BYTES);
    const stderr = new TailBuffer(TAIL_BYTES);
    let plan: AttemptPlan;
    try {
      plan = prepare(resolved.dir, resolved.entry);
      if (forced) return void (await releaseAttempt(ctx.deps, fence).catch(() => false));
      proc = Bun.spawn([plan.command, ...plan.args], {
        cwd: plan.cwd,
        env: plan.env,
        detached: true,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
    } catch (error) {
      return finish(
        outcomeOf({ kind: "not_started", errorKind: "spawn_failed", error: errorText(error) }, "", "", ctx.deps.now()),
      );
    }
    log.log("info", "attempt started", { run_id: run.id, attempt: fence.attempt, job_id: job.id, pid: proc.pid });
    const pid = proc.pid;
    let timedOut = false;
    let fenced = false;
    const stop = (why: "timeout" | "fenced") => {
      if (why === "timeout") timedOut = true;
      else fenced = true;
      killGroup(pid, "SIGTERM");
      setTimeout(() => killGroup(pid, "SIGKILL"), KILL_GRACE_MS).unref();
    };
    const timeout = setTimeout(() => stop("timeout"), plan.timeoutMs);
    const leaseMs = ctx.options.leaseSeconds * 1000;
    const lease = watchLease(
      leaseMs,
      () => heartbeatAttempt(ctx.deps, fence, leaseMs),
      () => stop("fenced"),
    );
    await Promise.all([proc.exited, drain(proc.stdout, stdout), drain(proc.stderr, stderr)]);
    clearTimeout(timeout);
    lease.stop();
    killGroup(pid, "SIGKILL");
    const exceptionFile = join(attemptDir, "exception.json");
    const exception = existsSync(exceptionFile)
      ? (JSON.parse(readFileSync(exceptionFile, "utf8")) as { name: string; message: string })
      : undefined;
    const end: ProcessEnd = {
      kind: "exited",
      exitCode: proc.exitCode,
      signal: proc.signalCode === null ? null : String(proc.signalCode),
      timedOut,
      timeoutSeconds: job.timeoutSeconds,
      exception,
    };
    if (forced) {
      await releaseAttempt(ctx.deps, fence).catch(() => false);
      log.log("warn", "attempt killed by worker shutdown; run released for another attempt", {
        run_id: run.id,
        attempt: fence.attempt,
      });
      return;
    }
    if (fenced) return log.log("warn", "attempt stopped: fenced", { run_id: run.id, attempt: fence.attempt });
    await finish(outcomeOf(end, stdout.text(), stderr.text(), ctx.deps.now()));
  };

  const done = execute()
    .catch((error) => log.log("error", "attempt failed inside the worker", { run_id: run.id, error: errorText(error) }))
    .finally(() => rmSync(attemptDir, { recursive: true, force: true }));
  return {
    runId: run.id,
    done,
    kill: () => {
      forced = true;
      if (proc) killGroup(proc.pid, "SIGKILL");
    },
  };
};
