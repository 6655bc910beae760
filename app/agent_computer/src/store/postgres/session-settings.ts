// The time limits every PostgreSQL session of ours runs under, sent with the connection's start-up message (no
// extra round trip). Without them one stuck transaction holding a row (a process stopped mid-write, a client on a
// dead network) blocks every writer of that row for as long as it lasts.
//
// - lock_timeout 5 s: what SQLite's busy timeout gives a writer; past it the command exits 8 STORE_UNAVAILABLE
//   ("the store is busy") instead of hanging. A normal write holds a row for milliseconds.
// - statement_timeout 30 s: lock_timeout bounds each lock wait, and one statement may wait for several (each row
//   it locks, its tuple lock and then its holder's transaction), so this is well above it: at 15 s, 1 of 200
//   sends was cancelled on a 2-core machine at load 25 (bench/pg-contention.ts). No statement of ours takes a
//   fraction of it otherwise. Migrations lift it for their own transaction (migrate.ts).
// - idle_in_transaction_session_timeout 15 s: a session of ours that stops between the statements of a transaction
//   (its process frozen, its network gone) is ended by the server, releasing its locks for everyone else.
export const SESSION_SETTINGS = {
  lock_timeout: "5s",
  statement_timeout: "30s",
  idle_in_transaction_session_timeout: "15s",
} as const;
