// Concurrent transactions of one process share a COMMIT, but each keeps its own all-or-nothing outcome.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { Driver } from "../../app/agent_computer/src/store/sql/db.ts";
import { openSqlite } from "../../app/agent_computer/src/store/sqlite/driver.ts";

let driver: Driver | undefined;
afterEach(async () => driver?.close());

const open = async (): Promise<Driver> => {
  driver = await openSqlite(join(mkdtempSync(join(tmpdir(), "ac-gc-")), "db.sqlite"));
  await driver.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  return driver;
};

test("a failing member rolls back only its own writes; the others commit", async () => {
  const db = await open();
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) =>
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO t (k, v) VALUES ($1, $2)", [`k${i}`, i]);
        if (i % 5 === 0) throw new Error(`member ${i} fails after writing`);
        await tx.run("INSERT INTO t (k, v) VALUES ($1, $2)", [`k${i}-second`, i]);
        return i;
      }),
    ),
  );
  expect(results.filter((r) => r.status === "rejected")).toHaveLength(4);
  const rows = await db.all<{ k: string }>("SELECT k FROM t ORDER BY k");
  expect(rows).toHaveLength(32);
  expect(rows.some((r) => r.k === "k5" || r.k === "k5-second")).toBe(false);
  expect(rows.some((r) => r.k === "k6-second")).toBe(true);
});

test("members run in arrival order and see each other's committed-in-batch writes", async () => {
  const db = await open();
  await db.run("INSERT INTO t (k, v) VALUES ('counter', 0)");
  const seen = await Promise.all(
    Array.from({ length: 50 }, () =>
      db.transaction(async (tx) => {
        await tx.run("UPDATE t SET v = v + 1 WHERE k = 'counter'");
        return (await tx.get<{ v: number }>("SELECT v FROM t WHERE k = 'counter'"))?.v;
      }),
    ),
  );
  expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
});

test("a unique violation surfaces as UniqueViolation and leaves the batch usable", async () => {
  const db = await open();
  const [a, b, c] = await Promise.allSettled([
    db.transaction((tx) => tx.run("INSERT INTO t (k, v) VALUES ('same', 1)")),
    db.transaction((tx) => tx.run("INSERT INTO t (k, v) VALUES ('same', 2)")),
    db.transaction((tx) => tx.run("INSERT INTO t (k, v) VALUES ('other', 3)")),
  ]);
  expect(a.status).toBe("fulfilled");
  expect(b).toMatchObject({ status: "rejected", reason: { name: "UniqueViolation" } });
  expect(c.status).toBe("fulfilled");
  expect(await db.all("SELECT k, v FROM t ORDER BY k")).toEqual([
    { k: "other", v: 3 },
    { k: "same", v: 1 },
  ]);
});
