import type { Store } from "./port.ts";

/**
 * The one place that picks the store: a database URL means PostgreSQL (or CONFIG_INVALID when it opens), none the
 * embedded SQLite file. A leaf, so a command can name its dialect without loading any driver.
 */
export const storeDialect = (env: Record<string, string | undefined>): Store["dialect"] =>
  env.AGENT_COMPUTER_DATABASE_URL ? "postgres" : "sqlite";
