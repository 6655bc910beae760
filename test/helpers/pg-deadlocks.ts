// PostgreSQL's own count of deadlocks in a test database: the lock-order suites assert it stays at 0.
import type { StoreTarget } from "./stores.ts";
import { pollUntil } from "./wait.ts";

/**
 * The server's count of deadlocks in this database, once every other session of it that ran anything has ended
 * (a session reports its counts when it ends; one that never ran a statement has none to report).
 */
export const deadlocksDetected = async (target: StoreTarget): Promise<number> => {
  await pollUntil(
    async () => {
      const [row] = await target.sql(
        "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND query <> ''",
      );
      return Number(row?.n) === 0 ? true : undefined;
    },
    { timeoutMs: 30_000, stepMs: 50, what: "the other sessions of the test database to end" },
  );
  await target.sql("SELECT pg_stat_clear_snapshot()");
  const [row] = await target.sql("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()");
  return Number(row?.deadlocks);
};
