// Concurrent transactions of one process share a COMMIT, but each keeps its own all-or-nothing outcome.
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { Db, Driver } from "../../app/agent_computer/src/store/sql/db.ts";
import { openSqlite } from "../../app/agent_computer/src/store/sqlite/driver.ts";
import { GroupCommitQueue } from "../../app/agent_computer/src/store/sqlite/group-commit.ts";

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

/** A queue over a real connection that records the transaction-control statements it issues. */
const recordingQueue = (failing: Set<string> = new Set()) => {
  const database = new Database(":memory:", { strict: true });
  database.run("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  const control: string[] = [];
  const db: Db = {
    dialect: "sqlite",
    forUpdate: "",
    all: async <T>(sql: string, params: readonly unknown[] = []) => database.query(sql).all(...(params as never[])) as T[],
    get: async <T>(sql: string, params: readonly unknown[] = []) =>
      (database.query(sql).get(...(params as never[])) ?? undefined) as T | undefined,
    run: async (sql: string, params: readonly unknown[] = []) => database.query(sql).run(...(params as never[])).changes,
    exec: async (script: string) => void database.run(script),
  };
  const queue = new GroupCommitQueue((sql) => {
    control.push(sql);
    if (failing.delete(sql)) throw new Error(`${sql} failed`);
    database.run(sql);
  }, db);
  const keys = () =>
    database
      .query<{ k: string }, []>("SELECT k FROM t ORDER BY k")
      .all()
      .map((r) => r.k);
  return { queue, control, keys };
};

const insert = (k: string) => (db: Db) => db.run("INSERT INTO t (k, v) VALUES ($1, 1)", [k]);

test("a batch in which nothing fails runs each callback once, under one BEGIN/COMMIT and no savepoint", async () => {
  const { queue, control, keys } = recordingQueue();
  const runs = new Map<string, number>();
  const counted = (k: string) => (db: Db) => {
    runs.set(k, (runs.get(k) ?? 0) + 1);
    return insert(k)(db);
  };
  await Promise.all(["a", "b", "c"].map((k) => queue.run("write", counted(k))));
  expect(control).toEqual(["BEGIN IMMEDIATE", "COMMIT"]);
  expect([...runs.values()]).toEqual([1, 1, 1]);
  expect(keys()).toEqual(["a", "b", "c"]);
});

test("one failing member rolls the bare batch back and replays it guarded: every other write lands once", async () => {
  const { queue, control, keys } = recordingQueue();
  const runs: string[] = [];
  const results = await Promise.allSettled(
    ["a", "b", "c", "d"].map((k) =>
      queue.run("write", async (db) => {
        runs.push(k);
        await insert(k)(db);
        if (k === "b") throw new Error("b fails after writing");
        return k;
      }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
  expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
    "a",
    "b fails after writing",
    "c",
    "d",
  ]);
  // The bare run stopped at b; the replay ran every member in its own savepoint.
  expect(runs).toEqual(["a", "b", "a", "b", "c", "d"]);
  expect(control).toEqual([
    "BEGIN IMMEDIATE",
    "ROLLBACK",
    "BEGIN IMMEDIATE",
    ...["SAVEPOINT member", "RELEASE member"],
    ...["SAVEPOINT member", "ROLLBACK TO member", "RELEASE member"],
    ...["SAVEPOINT member", "RELEASE member", "SAVEPOINT member", "RELEASE member"],
    "COMMIT",
  ]);
  expect(keys()).toEqual(["a", "c", "d"]);
});

test("after a batch with a failure the next runs guarded at once; after a clean guarded batch, bare again", async () => {
  const { queue, control } = recordingQueue();
  const failing = async () => {
    throw new Error("fails before writing");
  };
  await Promise.allSettled([queue.run("write", insert("a")), queue.run("write", failing)]);
  control.length = 0;
  await Promise.all([queue.run("write", insert("b")), queue.run("write", insert("c"))]);
  expect(control).toEqual(["BEGIN IMMEDIATE", ...Array(2).fill(["SAVEPOINT member", "RELEASE member"]).flat(), "COMMIT"]);
  control.length = 0;
  await Promise.all([queue.run("write", insert("d")), queue.run("write", insert("e"))]);
  expect(control).toEqual(["BEGIN IMMEDIATE", "COMMIT"]);
});

test("a lone failing caller is rolled back without a replay or a COMMIT", async () => {
  const { queue, control, keys } = recordingQueue();
  let runs = 0;
  await expect(
    queue.run("write", async (db) => {
      runs++;
      await insert("x")(db);
      throw new Error("lone failure");
    }),
  ).rejects.toThrow("lone failure");
  expect(runs).toBe(1);
  expect(control).toEqual(["BEGIN IMMEDIATE", "ROLLBACK"]);
  expect(keys()).toEqual([]);
});

test("a failing control statement rejects the whole batch, commits none of it, and the queue goes on", async () => {
  const { queue, keys } = recordingQueue(new Set(["ROLLBACK TO member"]));
  const failing = async (db: Db) => {
    await insert("b")(db);
    throw new Error("b fails");
  };
  const results = await Promise.allSettled([queue.run("write", insert("a")), queue.run("write", failing)]);
  expect(results.map((r) => (r.status === "rejected" ? (r.reason as Error).message : r.status))).toEqual([
    "ROLLBACK TO member failed",
    "ROLLBACK TO member failed",
  ]);
  expect(keys()).toEqual([]);
  await queue.run("write", insert("c"));
  expect(keys()).toEqual(["c"]);
});

test("two connections of one process to one file take turns instead of stalling each other until busy_timeout", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-gc-")), "db.sqlite");
  const first = await openSqlite(file);
  const second = await openSqlite(file);
  try {
    await first.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
    // Each transaction awaits between its statements, holding the write lock across turns of the event loop.
    const writes = (db: Driver, prefix: string) =>
      Array.from({ length: 20 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.run("INSERT INTO t (k, v) VALUES ($1, $2)", [`${prefix}${i}`, i]);
          await new Promise((resolve) => setImmediate(resolve));
          return tx.run("UPDATE t SET v = v + 1 WHERE k = $1", [`${prefix}${i}`]);
        }),
      );
    const results = await Promise.allSettled([...writes(first, "a"), ...writes(second, "b")]);
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect((await second.get<{ n: number }>("SELECT COUNT(*) AS n FROM t WHERE v >= 1"))?.n).toBe(40);
  } finally {
    await first.close();
    await second.close();
  }
});
