// How a finished process becomes a run result. Script exception, non-zero exit and timeout are terminal
// script results (state failed, never retried); only worker loss leads to another attempt.
import type { RunOutcome } from "../store/port.ts";

export type ProcessEnd =
  | { kind: "not_started"; errorKind: "job_dir_missing" | "spawn_failed"; error: string }
  | {
      kind: "exited";
      exitCode: number | null;
      signal: string | null;
      timedOut: boolean;
      timeoutSeconds: number;
      exception: { name: string; message: string } | undefined;
    };

export const outcomeOf = (end: ProcessEnd, stdoutTail: string, stderrTail: string, now: number): RunOutcome => {
  const base = { stdoutTail, stderrTail, finishedAt: now };
  if (end.kind === "not_started") {
    return { ...base, state: "failed", exitCode: null, signal: null, errorKind: end.errorKind, error: end.error };
  }
  const fields = { ...base, exitCode: end.exitCode, signal: end.signal };
  if (end.timedOut) {
    return {
      ...fields,
      state: "failed",
      errorKind: "timeout",
      error: `ran longer than timeout_seconds=${end.timeoutSeconds}; its process group was killed`,
    };
  }
  if (end.exitCode === 0) return { ...fields, state: "succeeded", errorKind: null, error: null };
  if (end.exception) {
    return {
      ...fields,
      state: "failed",
      errorKind: "exception",
      error: `uncaught ${end.exception.name}: ${end.exception.message}`,
    };
  }
  if (end.exitCode === null)
    return { ...fields, state: "failed", errorKind: "signal", error: `killed by ${end.signal ?? "a signal"}` };
  return { ...fields, state: "failed", errorKind: "exit", error: `exited with code ${end.exitCode}` };
};

const REASON_CHARS = 300;

/**
 * The run's end when the store refused its result: failed, the same exit code and signal, the tails dropped,
 * and an error that says what the script did and why it was not stored.
 */
export const unstorableOutcome = (outcome: RunOutcome, reason: string): RunOutcome => ({
  state: "failed",
  exitCode: outcome.exitCode,
  signal: outcome.signal,
  errorKind: "result_unstorable",
  error:
    `the attempt ended ${outcome.state}${outcome.errorKind ? ` (${outcome.errorKind})` : ""} but the store refused its result: ` +
    reason.slice(0, REASON_CHARS).replaceAll("\0", ""),
  stdoutTail: "",
  stderrTail: "",
  finishedAt: outcome.finishedAt,
});
