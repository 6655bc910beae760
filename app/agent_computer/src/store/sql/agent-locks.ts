import type { Db } from "./db.ts";

/**
 * The one lock order of agents' rows, in the one statement that takes it: every row at once, in name order (byte
 * order: agent names are ASCII), the unknown names skipped. Two transactions that write overlapping sets of agents
 * then queue for each other instead of each holding one row and waiting for the other's.
 * NO KEY UPDATE is the lock an UPDATE of these columns takes anyway; FOR UPDATE would also hold off every insert
 * that references the agent (its sessions, messages, jobs), which these writes never conflict with.
 */
const LOCK_AGENTS_IN_ORDER_SQL =
  'SELECT name FROM agents WHERE name = ANY($1::text[]) ORDER BY name COLLATE "C" FOR NO KEY UPDATE';

/** Locks the agents' rows named in `names` in the one order; SQLite has one writer at a time and needs no row locks. */
export const lockAgentRows = async (db: Db, names: readonly string[]): Promise<void> => {
  if (db.dialect === "postgres" && names.length > 0) await db.all(LOCK_AGENTS_IN_ORDER_SQL, [names]);
};
