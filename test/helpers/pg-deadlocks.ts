// PostgreSQL's own count of deadlocks in a test database: the lock-order suites assert it stays at 0, after racing
// their writes with raceRounds.
import type { Store } from "../../app/agent_computer/src/store/port.ts";
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

/**
 * Runs every call at once, each on a store of its own, `rounds` times. Before each round the clock moves 1.5 s on,
 * so every caller's presence is due again and each call writes its own agent's row as well. Returns every
 * rejection, as text; the stores are closed at the end.
 */
export const raceRounds = async (
  target: StoreTarget,
  calls: readonly ((store: Store) => Promise<unknown>)[],
  rounds: number,
  clock: { now: number },
): Promise<string[]> => {
  const stores = await Promise.all(calls.map(() => target.open()));
  const failures: string[] = [];
  for (let round = 0; round < rounds; round++) {
    clock.now += 1_500;
    const results = await Promise.allSettled(calls.map((call, i) => call(stores[i] as Store)));
    for (const r of results) if (r.status === "rejected") failures.push(String(r.reason));
  }
  await Promise.all(stores.map((s) => s.close()));
  return failures;
};
