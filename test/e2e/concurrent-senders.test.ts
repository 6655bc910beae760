// 50 sender processes at once, each also retrying with its idempotency key: nothing lost, nothing doubled.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const SENDERS = 50;

describe.each(storeNames)("concurrent senders [%s]", (storeName) => {
  let target: StoreTarget;
  let senders: TestAgent[];
  let inboxOwner: TestAgent;

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    const dir = mkdtempSync(join(tmpdir(), "ac-conc-"));
    inboxOwner = await checkInAgent(target.env, dir, "sink");
    senders = [];
    for (let i = 0; i < SENDERS; i += 10) {
      const batch = Array.from({ length: Math.min(10, SENDERS - i) }, (_, j) => checkInAgent(target.env, dir, `sender-${i + j}`));
      senders.push(...(await Promise.all(batch)));
    }
  }, 120_000);
  afterAll(async () => target?.dispose());

  test(`${SENDERS} concurrent processes, each sending once and retrying once`, { timeout: 180_000 }, async () => {
    const send = (s: TestAgent) =>
      runBin(
        "agent-send-cli",
        [
          "--from",
          s.id,
          "--token-file",
          s.tokenFile,
          "--to",
          "sink",
          "--body",
          `from ${s.id}`,
          "--idempotency-key",
          `k-${s.id}`,
          "--json",
        ],
        {
          env: target.env,
        },
      );
    const first = await Promise.all(senders.map(send));
    const retries = await Promise.all(senders.map(send));
    for (const r of [...first, ...retries]) expect(r.exitCode, r.stderr).toBe(0);
    expect(retries.every((r) => r.json<{ replayed: boolean }>().replayed)).toBe(true);
    expect(retries.map((r) => r.json<{ id: string }>().id)).toEqual(first.map((r) => r.json<{ id: string }>().id));

    const inbox = await runBin(
      "agent-inbox-cli",
      ["--agent-id", "sink", "--token-file", inboxOwner.tokenFile, "--limit", "100", "--json"],
      {
        env: target.env,
      },
    );
    const messages = inbox.json<{ messages: { body: string; seq: number }[] }>().messages;
    expect(messages).toHaveLength(SENDERS);
    expect(new Set(messages.map((m) => m.body)).size).toBe(SENDERS);
    expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: SENDERS }, (_, i) => i + 1));
    const rows = await target.sql("SELECT COUNT(*) AS n FROM deliveries WHERE recipient = $1", ["sink"]);
    expect(Number(rows[0]?.n)).toBe(SENDERS);
  });
});
