import type { IdentityRecord, IdentityRepo } from "../port.ts";
import { MARK_EMPTIED_CHANNELS_SQL } from "./channels.ts";
import { type Db, num, type Row, strOrNull } from "./db.ts";
import { toAgent } from "./mesh.ts";

const toIdentity = (r: Row): IdentityRecord => ({
  ...toAgent(r),
  managed: num(r.managed) === 1,
  cliProfile: strOrNull(r.cli_profile),
  terminalTitleRef: strOrNull(r.terminal_title_ref),
  recoveryHash: strOrNull(r.recovery_hash),
  holderSince: num(r.holder_since),
});

const DROP_OLD_WINDOWS_SQL = "DELETE FROM rate_buckets WHERE bucket = $1 AND window_start < $2";
const TAKE_RATE_SLOT_SQL = `INSERT INTO rate_buckets (bucket, window_start, hits) VALUES ($1, $2, $3)
  ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_buckets.hits + excluded.hits RETURNING hits`;
// The DELETE touches only older windows of the bucket, the INSERT only the current one, so running them as one
// statement (on one snapshot) changes nothing in what either sees.
const TAKE_RATE_SLOT_PG_SQL = `WITH dropped AS (${DROP_OLD_WINDOWS_SQL}) ${TAKE_RATE_SLOT_SQL}`;

export const identityRepo = (db: Db): IdentityRepo => ({
  getAgent: async (name, lock = false) => {
    const row = await db.get<Row>(`SELECT * FROM agents WHERE name = $1${lock ? db.forUpdate : ""}`, [name]);
    return row ? toIdentity(row) : undefined;
  },
  insertAgent: async (a) => {
    await db.run(
      // The process holding the name (agent_pid, agent_pid_start, host_shell_pids) is host-local: the registering
      // host keeps it in its state directory (LocalProcesses), so those columns stay empty.
      `INSERT INTO agents (name, token_hash, role, capabilities, class, description, host_id, managed,
         cli_profile, terminal_title_ref, created_at, updated_at, last_seen_at, holder_since, name_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $11, $11, $12)`,
      [
        a.agentId,
        a.tokenHash,
        a.role,
        JSON.stringify(a.capabilities),
        a.agentClass,
        a.description,
        a.hostId,
        a.managed ? 1 : 0,
        a.cliProfile,
        a.terminalTitleRef,
        a.now,
        a.nameKey,
      ],
    );
  },
  updateHolder: async (name, f, now) => {
    await db.run(
      `UPDATE agents SET role = $2, description = $3, cli_profile = $4, terminal_title_ref = $5, updated_at = $6,
         last_seen_at = $6 WHERE name = $1`,
      [name, f.role, f.description, f.cliProfile, f.terminalTitleRef, now],
    );
  },
  swapCredentials: async (name, expected, next, now) =>
    (await db.run(
      `UPDATE agents SET token_hash = $3, auth_state = $4, recovery_hash = $5, updated_at = $6
       WHERE name = $1 AND token_hash = $2`,
      [name, expected, next.tokenHash, next.authState, next.recoveryHash, now],
    )) === 1,
  setCapabilities: async (name, capabilities, now) => {
    await db.run("UPDATE agents SET capabilities = $2, updated_at = $3 WHERE name = $1", [
      name,
      JSON.stringify(capabilities),
      now,
    ]);
  },
  namesOfLength: async (minLength, maxLength, limit) =>
    (
      await db.all<Row>("SELECT name FROM agents WHERE length(name) BETWEEN $1 AND $2 ORDER BY name LIMIT $3", [
        minLength,
        maxLength,
        limit,
      ])
    ).map((r) => String(r.name)),
  nameWithKey: async (nameKey) =>
    strOrNull((await db.get<Row>("SELECT name FROM agents WHERE name_key = $1", [nameKey]))?.name) ?? undefined,
  deleteAgent: async (name, now) => {
    await db.run("DELETE FROM deliveries WHERE recipient = $1", [name]);
    await db.run("DELETE FROM sessions WHERE agent_name = $1", [name]);
    await db.run("DELETE FROM agents WHERE name = $1", [name]);
    await db.run(MARK_EMPTIED_CHANNELS_SQL, [now]);
  },
  endHolderHistory: async (name, since, now) => {
    await db.run("UPDATE agents SET holder_since = $2 WHERE name = $1 AND holder_since < $2", [name, since]);
    // A retry key of the last holder would replay its message to the next one.
    await db.run("UPDATE messages SET idempotency_key = NULL WHERE sender = $1 AND idempotency_key IS NOT NULL", [name]);
    await db.run("DELETE FROM webhook_endpoints WHERE owner = $1", [name]);
    await db.run("DELETE FROM contact_policies WHERE agent_name = $1", [name]);
    if ((await db.run("DELETE FROM channel_members WHERE agent_name = $1", [name])) > 0)
      await db.run(MARK_EMPTIED_CHANNELS_SQL, [now]);
  },
  endOpenSession: async (agentId, sessionId, now) =>
    (await db.run("UPDATE sessions SET ended_at = $3 WHERE agent_name = $1 AND id = $2 AND ended_at IS NULL", [
      agentId,
      sessionId,
      now,
    ])) === 1,
  takeRateSlot: async (bucket, windowStart, count = 1) => {
    // A send holds its host's counter row from this statement to COMMIT, and every send of the host writes that
    // row: on PostgreSQL the clean-up of older windows rides in the same statement (one round trip, not two).
    if (db.dialect === "postgres") return num((await db.get<Row>(TAKE_RATE_SLOT_PG_SQL, [bucket, windowStart, count]))?.hits);
    await db.run(DROP_OLD_WINDOWS_SQL, [bucket, windowStart]);
    return num((await db.get<Row>(TAKE_RATE_SLOT_SQL, [bucket, windowStart, count]))?.hits);
  },
});
