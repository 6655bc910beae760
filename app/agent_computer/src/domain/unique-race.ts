import { UniqueViolation } from "../store/port.ts";

/**
 * Runs `attempt`, and once more when it lost a unique-index race (UniqueViolation): a concurrent writer committed
 * the same row first, and the second attempt reads that row instead of inserting it. Once only: the winner's row
 * is there for the second attempt, so a second violation is a real failure. `when` false lets the violation through
 * (a send without an idempotency key has no race to lose).
 */
export const retryOnceOnUniqueRace = async <T>(attempt: () => Promise<T>, when = true): Promise<T> => {
  try {
    return await attempt();
  } catch (error) {
    if (when && error instanceof UniqueViolation) return attempt();
    throw error;
  }
};
