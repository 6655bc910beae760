// PostgreSQL group commit (store/postgres/group-commit.ts): the concurrent writes of one process share a
// transaction, and each caller still gets its own truthful, all-or-nothing outcome: a batchmate that throws, is
// refused by policy or names an unknown agent takes nothing of the others with it, and a process killed in the
// middle of batches never reported as sent a message that is not in the store.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { storeOver } from "../../app/agent_computer/src/store/open.ts";
import { openPostgres } from "../../app/agent_computer/src/store/postgres/driver.ts";
import { postgresMigrations } from "../../app/agent_computer/src/store/postgres/migration-set.ts";
import type { Driver } from "../../app/agent_computer/src/store/sql/db.ts";
import { migrate } from "../../app/agent_computer/src/store/sql/migrate.ts";
import { repoRoot } from "../helpers/bin.ts";
import { createDriverTarget, type DriverTarget } from "../helpers/drivers.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const onPostgres = storeNames.includes("postgres");

describe.skipIf(!onPostgres)("PostgreSQL group commit: transactions [postgres]", () => {
  let target: DriverTarget;
  let driver: Driver;

  beforeAll(async () => {
    target = await createDriverTarget("postgres");
    driver = await target.open();
    await driver.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  });
  afterAll(async () => target?.dispose());

  test("concurrent transactions of one process share a transaction (one txid for several)", async () => {
    const txids = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        driver.transaction(async (db) => {
          await db.run("INSERT INTO t (k, v) VALUES ($1, $2)", [`shared-${i}`, i]);
          return String((await db.get<{ id: unknown }>("SELECT txid_current() AS id"))?.id);
        }),
      ),
    );
    expect(new Set(txids).size).toBeLessThan(txids.length);
  });

  test("a member that throws, or whose statement fails, rolls back only its own writes; the others commit", async () => {
    await driver.run("INSERT INTO t (k, v) VALUES ('taken', 0)");
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        driver.transaction(async (db) => {
          await db.run("INSERT INTO t (k, v) VALUES ($1, $2)", [`m${i}`, i]);
          if (i % 10 === 3) throw new Error(`member ${i} refuses after writing`);
          // A failed statement aborts a PostgreSQL transaction: only a savepoint keeps the batch going.
          if (i % 10 === 7) await db.run("INSERT INTO t (k, v) VALUES ('taken', $1)", [i]);
          await db.run("INSERT INTO t (k, v) VALUES ($1, $2)", [`m${i}-second`, i]);
          return i;
        }),
      ),
    );
    results.forEach((result, i) => {
      if (i % 10 === 3)
        expect(result).toMatchObject({ status: "rejected", reason: { message: `member ${i} refuses after writing` } });
      else if (i % 10 === 7) expect(result).toMatchObject({ status: "rejected", reason: { constraint: expect.any(String) } });
      else expect(result).toEqual({ status: "fulfilled", value: i });
    });
    const keys = new Set((await driver.all<{ k: string }>("SELECT k FROM t WHERE k LIKE 'm%'")).map((r) => r.k));
    for (let i = 0; i < 30; i++) {
      const kept = i % 10 !== 3 && i % 10 !== 7;
      expect(keys.has(`m${i}`), `m${i}`).toBe(kept);
      expect(keys.has(`m${i}-second`), `m${i}-second`).toBe(kept);
    }
  });

  test("members run in arrival order and see the writes of the ones before them", async () => {
    await driver.run("INSERT INTO t (k, v) VALUES ('counter', 0)");
    const seen = await Promise.all(
      Array.from({ length: 50 }, () =>
        driver.transaction(async (db) => {
          await db.run("UPDATE t SET v = v + 1 WHERE k = 'counter'");
          return (await db.get<{ v: number }>("SELECT v FROM t WHERE k = 'counter'"))?.v;
        }),
      ),
    );
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  test("a member that waits out lock_timeout fails alone, once, saying nothing was written; its batchmates commit", async () => {
    await driver.run("INSERT INTO t (k, v) VALUES ('held', 0)");
    const holderDriver = await target.open();
    let releaseHolder: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      releaseHolder = resolve;
    });
    let held: () => void = () => {};
    const locked = new Promise<void>((resolve) => {
      held = resolve;
    });
    const holder = holderDriver.transaction(async (db) => {
      await db.run("UPDATE t SET v = -1 WHERE k = 'held'");
      held();
      await holding;
    });
    await locked;
    let blockedRuns = 0;
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          driver.transaction(async (db) => {
            await db.run("INSERT INTO t (k, v) VALUES ($1, $2)", [`beside-held-${i}`, i]);
            if (i === 4) {
              blockedRuns++;
              await db.run("UPDATE t SET v = 1 WHERE k = 'held'");
            }
            return i;
          }),
        ),
      );
      results.forEach((result, i) => {
        if (i === 4) {
          expect(result).toMatchObject({
            status: "rejected",
            reason: { code: "STORE_UNAVAILABLE", message: expect.stringMatching(/lock_timeout.*nothing was written/) },
          });
        } else expect(result).toEqual({ status: "fulfilled", value: i });
      });
    } finally {
      releaseHolder();
      await holder;
    }
    expect(blockedRuns).toBe(1);
    const kept = (await driver.all<{ k: string }>("SELECT k FROM t WHERE k LIKE 'beside-held-%' ORDER BY k")).map((r) => r.k);
    expect(kept).toEqual(Array.from({ length: 10 }, (_, i) => `beside-held-${i}`).filter((k) => k !== "beside-held-4"));
  });

  test("the batch's connection ended under it: the whole batch runs again and every write lands exactly once", async () => {
    const killer = await target.open();
    let killed = false;
    const values = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        driver.transaction(async (db) => {
          await db.run("INSERT INTO t (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = t.v + 100", [`once-${i}`, i]);
          if (i === 10 && !killed) {
            killed = true;
            const me = await db.get<{ pid: unknown }>("SELECT pg_backend_pid() AS pid");
            await killer.get("SELECT pg_terminate_backend($1)", [me?.pid]);
            await db.get("SELECT 1 AS still_there");
          }
          return i;
        }),
      ),
    );
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const rows = await killer.all<{ k: string; v: unknown }>("SELECT k, v FROM t WHERE k LIKE 'once-%' ORDER BY v");
    expect(rows.map((r) => Number(r.v))).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});

describe.skipIf(!onPostgres)("PostgreSQL group commit: sends [postgres]", () => {
  let mesh: MeshAgents;

  beforeAll(async () => {
    mesh = await openMeshAgents("postgres");
    for (const name of ["alice", "bob", "carol", "closed-dan"]) await mesh.join(name);
    await mesh.store.write((tx) => tx.mesh.setContactPolicy("closed-dan", "closed", mesh.clock.now));
  });
  afterAll(async () => mesh?.close());

  test("sends batched together: a policy refusal and an unknown recipient fail alone, the others are delivered", async () => {
    const to = ["bob", "closed-dan", "carol", "nobody", "bob", "carol"];
    const results = await Promise.all(
      to.map((recipient, i) =>
        failure(
          sendMessage(mesh.deps(), {
            from: "alice",
            token: mesh.token("alice"),
            recipients: { kind: "to", agentIds: [recipient] },
            body: `batched ${i}`,
          }).then((r) => {
            throw Object.assign(new Error("sent"), { code: "SENT", result: r });
          }),
        ),
      ),
    );
    const codes = results.map((r) => r?.code);
    expect(codes).toEqual(["SENT", "REFUSED_BY_POLICY", "SENT", "UNKNOWN_AGENT", "SENT", "SENT"]);
    const bobSeqs = results
      .filter((_, i) => to[i] === "bob")
      .map((r) => (r as unknown as { result: { recipients: { seq: number }[] } }).result.recipients[0]?.seq);
    expect(new Set(bobSeqs).size).toBe(2);
    const stored = await mesh.target.sql("SELECT body FROM messages WHERE body LIKE 'batched %' ORDER BY body");
    expect(stored.map((r) => r.body)).toEqual(["batched 0", "batched 2", "batched 4", "batched 5"]);
    expect(await mesh.count("SELECT COUNT(*) AS n FROM deliveries WHERE recipient IN ('closed-dan', 'nobody')")).toBe(0);
  });

  test("sends batched together are interleaved: every caller's state is asked before any message is stored", async () => {
    const statements: string[] = [];
    const driver = openPostgres(mesh.target.env.AGENT_COMPUTER_DATABASE_URL as string, {
      trace: (sql) => statements.push(sql),
    });
    await migrate(driver, postgresMigrations);
    const store = storeOver(driver);
    try {
      statements.length = 0;
      const deps = { ...mesh.deps(), store };
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          sendMessage(deps, {
            from: "alice",
            token: mesh.token("alice"),
            recipients: { kind: "to", agentIds: [i % 2 ? "bob" : "carol"] },
            body: `interleaved ${i}`,
          }),
        ),
      );
      const firstInsert = statements.findIndex((s) => s.includes("INSERT INTO messages"));
      const callerReadsBefore = statements.slice(0, firstInsert).filter((s) => s.includes("a.token_hash")).length;
      expect(callerReadsBefore).toBe(8);
    } finally {
      await store.close();
    }
  });

  test("a process killed in the middle of batches: every send it reported as sent is in the store", async () => {
    const child = Bun.spawn([process.execPath, join(repoRoot, "test", "helpers", "pg-batch-sender.ts")], {
      env: {
        PATH: process.env.PATH,
        AGENT_COMPUTER_DATABASE_URL: mesh.target.env.AGENT_COMPUTER_DATABASE_URL,
        AGENT_COMPUTER_HOME: mesh.target.env.AGENT_COMPUTER_HOME,
        SENDER_TOKEN: mesh.token("alice"),
      },
      stdout: "pipe",
      stderr: "inherit",
    });
    const reported: string[] = [];
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of child.stdout) {
      pending += decoder.decode(chunk);
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      reported.push(...lines.filter((l) => l.startsWith("msg_")));
      if (reported.length >= 300) break;
    }
    child.kill("SIGKILL");
    await child.exited;
    expect(reported.length).toBeGreaterThanOrEqual(300);
    const stored = new Set(
      (await mesh.target.sql("SELECT id FROM messages WHERE id = ANY($1::text[])", [reported])).map((r) => r.id),
    );
    expect(reported.filter((id) => !stored.has(id))).toEqual([]);
  });
});
