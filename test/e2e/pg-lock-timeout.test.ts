// A stuck transaction holding a recipient's row (another session that never commits) makes a send give up after
// lock_timeout with exit 8 STORE_UNAVAILABLE saying why and that nothing was written, as SQLite's busy timeout
// does, instead of hanging for as long as the holder lasts. Every session of ours carries the documented limits.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openPostgres } from "../../app/agent_computer/src/store/postgres/driver.ts";
import { SESSION_SETTINGS } from "../../app/agent_computer/src/store/postgres/session-settings.ts";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { errorOf } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const onPostgres = storeNames.includes("postgres");
// Long enough for any lock_timeout of a few seconds to have fired; the holder lets go then in any case, so code
// without a lock timeout finishes the send (exit 0) and fails the assertions instead of hanging the suite.
const HOLD_AT_MOST_MS = 30_000;

describe.skipIf(!onPostgres)("lock and statement time limits [postgres]", () => {
  let target: StoreTarget;
  let sender: TestAgent;
  let recipient: TestAgent;

  beforeAll(async () => {
    target = await createStoreTarget("postgres");
    const dir = mkdtempSync(join(tmpdir(), "ac-lock-timeout-"));
    sender = await checkInAgent(target.env, dir, "sender");
    recipient = await checkInAgent(target.env, dir, "recipient");
  });
  afterAll(async () => target?.dispose());

  test("every session runs with lock_timeout, statement_timeout and idle_in_transaction_session_timeout", async () => {
    const driver = openPostgres(target.env.AGENT_COMPUTER_DATABASE_URL as string);
    try {
      const row = await driver.get<Record<string, string>>(
        `SELECT current_setting('lock_timeout') AS lock_timeout, current_setting('statement_timeout') AS statement_timeout,
           current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction_session_timeout`,
      );
      expect(row).toEqual({ ...SESSION_SETTINGS });
    } finally {
      await driver.close();
    }
  });

  test("a send to a recipient whose row another transaction holds exits 8 STORE_UNAVAILABLE; nothing is written", async () => {
    const holderPool = new SQL(target.env.AGENT_COMPUTER_DATABASE_URL as string);
    const holder = await holderPool.reserve();
    await holder.unsafe("BEGIN");
    await holder.unsafe("SELECT name FROM agents WHERE name = $1 FOR UPDATE", ["recipient"]);
    const letGo = setTimeout(() => void holder.unsafe("ROLLBACK"), HOLD_AT_MOST_MS);
    try {
      const result = await runBin(
        "agent-send-cli",
        ["--from", "sender", "--token-file", sender.tokenFile, "--to", "recipient", "--body", "blocked?", "--json"],
        { env: target.env },
      );
      expect(result.exitCode, result.stderr).toBe(8);
      const error = errorOf(result);
      expect(error.code).toBe("STORE_UNAVAILABLE");
      expect(error.message).toMatch(/busy.*locked by another transaction.*lock_timeout \(5s\).*nothing was written/);
      expect(error.hint).toMatch(/retry/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      clearTimeout(letGo);
      await holder.unsafe("ROLLBACK");
      holder.release();
      await holderPool.close();
    }
    const [row] = await target.sql("SELECT COUNT(*) AS n FROM messages WHERE body = $1", ["blocked?"]);
    expect(Number(row?.n)).toBe(0);
    // Once the holder is gone the same send goes through.
    const again = await runBin(
      "agent-send-cli",
      ["--from", "sender", "--token-file", sender.tokenFile, "--to", "recipient", "--body", "blocked?", "--json"],
      { env: target.env },
    );
    expect(again.exitCode, again.stderr).toBe(0);
    expect(recipient.id).toBe("recipient");
  });
});
