// The CLIs through PgBouncer in transaction pooling mode, what a team with hundreds of short-lived agent calls
// puts in front of PostgreSQL: with ?pool_mode=transaction in the URL, a fresh database is migrated through the
// pooler and check-in, send, inbox and ack work, each transaction carrying the documented time limits (SET LOCAL:
// a pooler keeps no session). Without the parameter the pooler's refusal of our start-up parameters is explained,
// and LISTEN (which needs a direct connection) is refused with the reason instead of hearing nothing.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openPostgres } from "../../app/agent_computer/src/store/postgres/driver.ts";
import { SESSION_SETTINGS } from "../../app/agent_computer/src/store/postgres/session-settings.ts";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { errorOf } from "../helpers/identity.ts";
import { PGBOUNCER, type PgBouncer, startPgBouncer } from "../helpers/pgbouncer.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const onPostgres = storeNames.includes("postgres");
const hasPgBouncer = existsSync(PGBOUNCER);
if (onPostgres && !hasPgBouncer) {
  if (process.env.CI === "true") throw new Error(`CI=true but ${PGBOUNCER} is missing: scripts/test-all.sh installs pgbouncer`);
  console.warn(`SKIPPED: the PgBouncer suite (${PGBOUNCER} is not installed: apt-get install pgbouncer)`);
}

describe.skipIf(!onPostgres || !hasPgBouncer)("the CLIs through PgBouncer in transaction pooling mode [postgres]", () => {
  let target: StoreTarget;
  let bouncer: PgBouncer;
  let env: Record<string, string>;
  let alice: TestAgent;
  let bob: TestAgent;
  const as = (agent: TestAgent) => ["--agent-id", agent.id, "--token-file", agent.tokenFile];

  beforeAll(async () => {
    // A fresh database: the first command migrates it through the pooler.
    target = await createStoreTarget("postgres");
    bouncer = await startPgBouncer(target.env.AGENT_COMPUTER_DATABASE_URL as string);
    const url = new URL(bouncer.url);
    url.searchParams.set("pool_mode", "transaction");
    env = { ...target.env, AGENT_COMPUTER_DATABASE_URL: url.toString() };
  });
  afterAll(async () => {
    await bouncer?.stop();
    await target?.dispose();
  });

  test("check-in, send, inbox and ack through the pooler; the store is migrated through it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ac-pgbouncer-agents-"));
    alice = await checkInAgent(env, dir, "alice");
    bob = await checkInAgent(env, dir, "bob");
    const sent = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "bob", "--body", "via the pooler", "--json"],
      {
        env,
      },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const message = sent.json<{ id: string; recipients: { outcome: string }[] }>();
    expect(message.recipients[0]?.outcome).toBe("live");
    const inbox = await runBin("agent-inbox-cli", [...as(bob), "--json"], { env });
    expect(inbox.exitCode, inbox.stderr).toBe(0);
    expect(inbox.json<{ messages: { id: string; body: string }[] }>().messages).toEqual([
      expect.objectContaining({ id: message.id, body: "via the pooler" }),
    ]);
    const ack = await runBin("agent-ack-cli", [...as(bob), "--message-id", message.id, "--json"], { env });
    expect(ack.exitCode, ack.stderr).toBe(0);
    const [row] = await target.sql("SELECT state FROM deliveries WHERE message_id = $1", [message.id]);
    expect(row?.state).toBe("acked");
    const [migrated] = await target.sql("SELECT COUNT(*) AS n FROM schema_migrations");
    expect(Number(migrated?.n)).toBeGreaterThan(0);
  });

  test("each pooled transaction runs under the documented time limits", async () => {
    const driver = openPostgres(env.AGENT_COMPUTER_DATABASE_URL as string);
    try {
      const limits = await driver.transaction((db) =>
        db.get<Record<string, string>>(
          `SELECT current_setting('lock_timeout') AS lock_timeout, current_setting('statement_timeout') AS statement_timeout,
             current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction_session_timeout`,
        ),
      );
      expect(limits).toEqual({ ...SESSION_SETTINGS });
    } finally {
      await driver.close();
    }
  });

  test("LISTEN through the pooler is refused, saying it needs a direct connection", async () => {
    const driver = openPostgres(env.AGENT_COMPUTER_DATABASE_URL as string);
    try {
      await expect(driver.listen?.("agent_computer_automation", () => {})).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringMatching(/LISTEN needs a direct connection.*pool_mode=transaction/),
      });
    } finally {
      await driver.close();
    }
  });

  test("the pooler's URL without pool_mode=transaction: exit 2 naming the parameter to add", async () => {
    const result = await runBin("agents-list-cli", ["--json"], {
      env: { ...target.env, AGENT_COMPUTER_DATABASE_URL: bouncer.url },
    });
    expect(result.exitCode, result.stderr).toBe(2);
    const error = errorOf(result);
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.hint).toMatch(/pool_mode=transaction/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
