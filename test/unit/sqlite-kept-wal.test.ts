// One-shot commands keep the WAL between them (store/sqlite/driver.ts): each appends to the frames the last one
// left and checkpointed, which saves the fsync of a fresh WAL header, and whoever closes the store while the WAL
// is over its bound empties it, so no opener ever reads back an ever-growing file.
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { openSqlite } from "../../app/agent_computer/src/store/sqlite/driver.ts";

const walSize = (file: string): number => Bun.file(`${file}-wal`).size;

/** One open, one transaction writing `rows` rows of 1 KB, one close: what a one-shot command does. */
const command = async (file: string, rows: number): Promise<void> => {
  const driver = await openSqlite(file);
  await driver.exec("CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT NOT NULL)");
  await driver.transaction(async (tx) => {
    for (let i = 0; i < rows; i++) await tx.run("INSERT INTO t (v) VALUES ($1)", ["x".repeat(1024)]);
  });
  await driver.close();
};

const rowsInFileAlone = (file: string): number => {
  const alone = join(mkdtempSync(join(tmpdir(), "ac-alone-")), "copy.sqlite");
  copyFileSync(file, alone);
  const db = new Database(alone, { readonly: true });
  try {
    return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM t").get()?.n ?? -1;
  } finally {
    db.close();
  }
};

test("a small write leaves its WAL behind for the next command, after copying it into the database file", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-kept-wal-")), "db.sqlite");
  await command(file, 1);
  const first = walSize(file);
  expect(existsSync(`${file}-wal`)).toBe(true);
  expect(first).toBeGreaterThan(0);
  await command(file, 1);
  // Appended to, not started over: the second command's frames follow the first's.
  expect(walSize(file)).toBeGreaterThan(first);
  expect(rowsInFileAlone(file)).toBe(2);
});

test("the command that closes the store with the WAL over its bound empties it", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "ac-kept-wal-")), "db.sqlite");
  await command(file, 1);
  expect(walSize(file)).toBeGreaterThan(0);
  // 400 rows of 1 KB: some 100 pages, 400 KiB of WAL, over the 256 KiB kept.
  await command(file, 400);
  expect(existsSync(`${file}-wal`)).toBe(true);
  expect(walSize(file)).toBe(0);
  expect(rowsInFileAlone(file)).toBe(401);
  await command(file, 1);
  expect(walSize(file)).toBeGreaterThan(0);
  expect(rowsInFileAlone(file)).toBe(402);
});
