// Storing an attempt's result. The script has run and its side effects happened, so a result the store
// refuses must not lapse into a lost lease and another attempt: it is stored again as a failed run
// (result_unstorable) without the tails. Only an unreachable store leaves the run to the lease rescue.
import { finishAttempt } from "../domain/automation/attempts.ts";
import type { Deps } from "../domain/deps.ts";
import { errorText, isAppError } from "../errors.ts";
import type { Fence, RunOutcome } from "../store/port.ts";
import { unstorableOutcome } from "./attempt-result.ts";
import type { Logger } from "./log.ts";

export type Recorded = "stored" | "fenced" | "stored_as_unstorable" | "not_stored";

const unreachable = (error: unknown): boolean => isAppError(error) && error.code === "STORE_UNAVAILABLE";

export const recordResult = async (deps: Deps, fence: Fence, outcome: RunOutcome, log: Logger): Promise<Recorded> => {
  const ids = { run_id: fence.runId, attempt: fence.attempt };
  try {
    return (await finishAttempt(deps, fence, outcome)) ? "stored" : "fenced";
  } catch (error) {
    if (unreachable(error)) {
      log.log("error", "could not record the result; the lease will expire and the run be rescued", {
        ...ids,
        error: errorText(error),
      });
      return "not_stored";
    }
    log.log("error", "the store refused the result; recording the run as failed (result_unstorable)", {
      ...ids,
      error: errorText(error),
    });
    try {
      return (await finishAttempt(deps, fence, unstorableOutcome(outcome, errorText(error)))) ? "stored_as_unstorable" : "fenced";
    } catch (again) {
      log.log("error", "could not record the result; the lease will expire and the run be rescued", {
        ...ids,
        error: errorText(again),
      });
      return "not_stored";
    }
  }
};
