// The statements that ask whether any open session's ttl has run out. Every authenticated call asks, so each must
// stay one index entry's read whatever the team's size, under PostgreSQL's generic plan too: after five executions
// a prepared statement may be planned without its parameters, and `expires_at <= $1` then looks like a third of the
// table, so the planner scans every open session. The earliest expiry of an open session is the first entry of
// index sessions_open_by_expiry (both stores) whatever the parameter, and comparing it with `now` decides the same.

/** Selects the earliest expiry among open sessions (NULL when none is open). */
const FIRST_OPEN_EXPIRY = "(SELECT MIN(expires_at) FROM sessions WHERE ended_at IS NULL)";

/** Whether some open session has run out by the time placeholder `now` (false, never NULL, when none is open). */
export const expiryDueAt = (now: string): string => `COALESCE(${FIRST_OPEN_EXPIRY} <= ${now}, FALSE)`;

/** One row when some open session has run out by $1, none otherwise. */
export const EXPIRY_DUE_SQL = `SELECT 1 AS due WHERE ${FIRST_OPEN_EXPIRY} <= $1`;

/** An open session whose ttl has run out by the time placeholder `now`: it is due to be ended. */
export const ranOut = (now: string): string => `ended_at IS NULL AND expires_at <= ${now}`;
