// A long-lived store checkpoints on a thread of its own: committed pages reach the database file although the
// main connection never checkpoints (it is far below its own threshold), and closing stops the thread.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { Driver } from "../../app/agent_computer/src/store/sql/db.ts";
import { openSqlite } from "../../app/agent_computer/src/store/sqlite/driver.ts";
import { pollUntil } from "../helpers/wait.ts";

const bun = join(import.meta.dirname, "../../node_modules/bun/bin/bun.exe");
const driverModule = join(import.meta.dirname, "../../app/agent_computer/src/store/sqlite/driver.ts");

let driver: Driver | undefined;
afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

const fileSize = (file: string): number => Bun.file(file).size;

/** 200 transactions of one 2 KB row each: a few hundred WAL pages, under every automatic threshold. */
const writeRows = async (db: Driver): Promise<void> => {
  await db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  for (let i = 0; i < 200; i++)
    await db.transaction((tx) => tx.run("INSERT INTO t (k, v) VALUES ($1, $2)", [i, "x".repeat(2048)]));
};

test("without the thread, committed pages stay in the WAL (the control)", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-ckpt-")), "db.sqlite");
  driver = await openSqlite(file);
  const before = fileSize(file);
  await writeRows(driver);
  await Bun.sleep(300);
  expect(fileSize(file)).toBe(before);
  expect(fileSize(`${file}-wal`)).toBeGreaterThan(200 * 2048);
});

test("a long-lived store's thread copies committed pages into the database file", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-ckpt-")), "db.sqlite");
  driver = await openSqlite(file, { longLived: true });
  const before = fileSize(file);
  await writeRows(driver);
  const copied = () => fileSize(file) > before + 200 * 2048 || undefined;
  expect(await pollUntil(copied, { timeoutMs: 10_000, stepMs: 20, what: "the pages to reach the database file" })).toBe(true);
  expect(await driver.get<{ n: number }>("SELECT COUNT(*) AS n FROM t")).toEqual({ n: 200 });
});

test("closing stops the thread; the rows are all there for the next opener", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-ckpt-")), "db.sqlite");
  const first = await openSqlite(file, { longLived: true });
  await writeRows(first);
  await first.close();
  driver = await openSqlite(file);
  expect(await driver.get<{ n: number }>("SELECT COUNT(*) AS n FROM t")).toEqual({ n: 200 });
});

test("the thread never keeps a process alive: a script that opens, writes and ends exits by itself", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-ckpt-")), "db.sqlite");
  const script =
    `const { openSqlite } = await import(${JSON.stringify(driverModule)});` +
    `const db = await openSqlite(${JSON.stringify(file)}, { longLived: true });` +
    `await db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY)");` +
    `for (let i = 0; i < 50; i++) await db.transaction((tx) => tx.run("INSERT INTO t (k) VALUES ($1)", [i]));` +
    `console.log("written");`;
  const child = Bun.spawn([bun, "-e", script], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
  // A hang would end here, at the deadline, with a kill: the exit code then is not 0.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await child.exited;
  clearTimeout(deadline);
  expect({ code, stdout: await new Response(child.stdout).text() }).toEqual({ code: 0, stdout: "written\n" });
});
