// AGENT_COMPUTER_SQLITE_GROUP_COMMIT=0: the SQLite store gives every call a plain transaction of its own, so a
// bug can be bisected against group commit. The mesh contract's write-heavy case (concurrent sends, some refused)
// runs on a store with the switch off and with it on, and the transaction-control statements are counted.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { storeOver } from "../../app/agent_computer/src/store/open.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import type { Driver } from "../../app/agent_computer/src/store/sql/db.ts";
import { migrate } from "../../app/agent_computer/src/store/sql/migrate.ts";
import { groupCommitFromEnv, openSqlite } from "../../app/agent_computer/src/store/sqlite/driver.ts";
import { sqliteMigrations } from "../../app/agent_computer/src/store/sqlite/migration-set.ts";
import { meshClock } from "../helpers/mesh.ts";

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

/** A migrated store whose transaction-control statements and write calls are recorded from here on. */
const tracedStore = async (groupCommit: boolean) => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-switch-")), "db.sqlite");
  const control: string[] = [];
  let tracing = false;
  const driver = await openSqlite(file, { groupCommit, trace: (sql) => tracing && control.push(sql) });
  await migrate(driver, sqliteMigrations);
  let writes = 0;
  const counted: Driver = {
    ...driver,
    transaction: (fn) => {
      writes++;
      return driver.transaction(fn);
    },
  };
  store = storeOver(counted);
  const clock = meshClock(store);
  const tokens = new Map<string, string>();
  for (const agentId of ["alice", "tally"]) {
    tokens.set(agentId, (await checkIn(clock.deps(), { agentId, token: undefined })).agent_token as string);
  }
  writes = 0;
  tracing = true;
  return { clock, tokens, control, writes: () => writes };
};

/** The concurrent-sends case of test/contract/mesh-store.test.ts: 60 sends at once, 20 of them refused. */
const concurrentSends = async ({ clock, tokens }: Awaited<ReturnType<typeof tracedStore>>) => {
  const send = (token: string | undefined, to: string, body: string, idempotencyKey?: string) =>
    sendMessage(clock.deps(), { from: "alice", token, recipients: { kind: "to", agentIds: [to] }, body, idempotencyKey });
  const outcomes = await Promise.allSettled(
    Array.from({ length: 60 }, (_, i) => {
      if (i % 6 === 1) return send(tokens.get("alice"), "nobody-here", `unknown ${i}`);
      if (i % 6 === 2) return send("act_wrong", "tally", `forged ${i}`);
      if (i % 6 === 3) return send(tokens.get("alice"), "tally", "once only", "tally-dup");
      return send(tokens.get("alice"), "tally", `body ${i}`);
    }),
  );
  const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code: string }).code] : []));
  expect(refused.sort()).toEqual([...Array(10).fill("AUTH_FAILED"), ...Array(10).fill("UNKNOWN_AGENT")]);
  const seqs = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value.recipients[0]?.seq] : []));
  expect(new Set(seqs)).toEqual(new Set(Array.from({ length: 31 }, (_, i) => i + 1)));
};

const count = (statements: string[], statement: string) => statements.filter((s) => s === statement).length;

test("switched off, the concurrent sends run one BEGIN IMMEDIATE per write call, with no savepoint or replay", async () => {
  const traced = await tracedStore(false);
  await concurrentSends(traced);
  const writes = count(traced.control, "BEGIN IMMEDIATE");
  expect(writes).toBe(traced.writes());
  expect(writes).toBeGreaterThanOrEqual(60);
  expect(traced.control.filter((s) => s.includes("SAVEPOINT") || s.includes("RELEASE"))).toEqual([]);
  // Each transaction ends before the next begins: BEGIN, then COMMIT or ROLLBACK, in strict turns.
  for (let i = 0; i < traced.control.length; i += 2) {
    expect(traced.control[i]).toMatch(/^BEGIN (IMMEDIATE|DEFERRED)$/);
    expect(traced.control[i + 1]).toMatch(/^(COMMIT|ROLLBACK)$/);
  }
});

test("switched on (the default), the same sends share transactions: fewer BEGINs than write calls (the control)", async () => {
  const traced = await tracedStore(true);
  await concurrentSends(traced);
  expect(count(traced.control, "BEGIN IMMEDIATE")).toBeLessThan(traced.writes());
});

test("AGENT_COMPUTER_SQLITE_GROUP_COMMIT: 0 turns group commit off, 1 or unset keeps it, anything else is refused", () => {
  expect(groupCommitFromEnv({ AGENT_COMPUTER_SQLITE_GROUP_COMMIT: "0" })).toBe(false);
  expect(groupCommitFromEnv({ AGENT_COMPUTER_SQLITE_GROUP_COMMIT: "1" })).toBe(true);
  expect(groupCommitFromEnv({})).toBe(true);
  expect(() => groupCommitFromEnv({ AGENT_COMPUTER_SQLITE_GROUP_COMMIT: "off" })).toThrow(
    expect.objectContaining({ code: "INVALID_INPUT", message: expect.stringContaining("AGENT_COMPUTER_SQLITE_GROUP_COMMIT") }),
  );
});
