// What a doctor check is and how the checks run: each a small function of what it may look at, run side by side,
// each within its own time bound, so one that hangs (a herdr that never answers) is reported, not waited for.
import type { StoreInspection } from "../../store/admin/inspect.ts";

export type Verdict = "ok" | "warn" | "error";

export interface CheckOutcome {
  status: Verdict;
  /** What was found, one line. */
  detail: string;
  /** What to do about it (for warn and error). */
  fix?: string;
}

/** What every check may look at; the store is inspected once, for every check that asks. */
export interface DoctorContext {
  env: Record<string, string | undefined>;
  /** The environment the process was started with, before the configuration file filled unset variables. */
  launchEnv: Record<string, string | undefined>;
  stateDir: string;
  /** This host's clock. */
  now(): number;
  inspection(): Promise<StoreInspection>;
}

export interface DoctorCheck {
  name: string;
  /** Default 5000. */
  timeoutMs?: number;
  run(ctx: DoctorContext): Promise<CheckOutcome>;
}

export interface CheckReport extends CheckOutcome {
  name: string;
}

const DEFAULT_TIMEOUT_MS = 5000;

const bounded = async (check: DoctorCheck, ctx: DoctorContext): Promise<CheckOutcome> => {
  const limit = check.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          status: "error",
          detail: `no answer within ${limit / 1000} s`,
          fix: "look at what this check reaches (the store, a program) by hand; it hangs",
        }),
      limit,
    );
  });
  try {
    return await Promise.race([
      check.run(ctx).catch(
        (error: unknown): CheckOutcome => ({
          status: "error",
          detail: `the check failed: ${error instanceof Error ? error.message : String(error)}`,
          fix: (error as { hint?: string }).hint ?? "run it again with AGENT_COMPUTER_DEBUG=1 and report the failure",
        }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
};

/** Runs every check at once; reports in the checks' order. */
export const runChecks = async (checks: readonly DoctorCheck[], ctx: DoctorContext): Promise<CheckReport[]> =>
  Promise.all(checks.map(async (check) => ({ name: check.name, ...(await bounded(check, ctx)) })));
