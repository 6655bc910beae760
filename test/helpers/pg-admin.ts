// Administration of throw-away PostgreSQL databases, shared by the store suites and the bench.
import type { SQL } from "bun";

/**
 * DROP … WITH (FORCE) ends the other sessions in the database, but a role without pg_signal_backend may not end
 * an autovacuum worker that happens to be in it (42501): that worker is done within moments, so try again.
 */
export const dropDatabase = async (admin: SQL, name: string): Promise<void> => {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return;
    } catch (error) {
      if (String((error as { errno?: unknown }).errno) !== "42501" || attempt === 20) throw error;
      await Bun.sleep(250);
    }
  }
};
