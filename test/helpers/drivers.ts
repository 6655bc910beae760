// Bare, unmigrated drivers of every store, for tests of the migration runner and the schema itself. PostgreSQL
// is listed as in stores.ts (only with AGENT_COMPUTER_TEST_PG_URL; a missing URL fails in CI); each target gets
// a database of its own.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { openPostgres } from "../../app/agent_computer/src/store/postgres/driver.ts";
import type { Driver } from "../../app/agent_computer/src/store/sql/db.ts";
import { openSqlite } from "../../app/agent_computer/src/store/sqlite/driver.ts";
import { dropDatabase } from "./pg-admin.ts";
import { forgetDatabase, rememberDatabase } from "./scratch-databases.ts";
import { pgUrl } from "./stores.ts";

export interface DriverTarget {
  name: "sqlite" | "postgres";
  /** Where the database is: the SQLite file, or the PostgreSQL URL. */
  location: string;
  /** Opens another driver on the same database (closed by dispose). */
  open(): Promise<Driver>;
  dispose(): Promise<void>;
}

export const createDriverTarget = async (name: "sqlite" | "postgres"): Promise<DriverTarget> => {
  const opened: Driver[] = [];
  const track = (driver: Driver): Driver => {
    opened.push(driver);
    return driver;
  };
  const closeAll = () => Promise.all(opened.map((d) => d.close().catch(() => undefined)));
  if (name === "sqlite") {
    const file = join(mkdtempSync(join(tmpdir(), "ac-driver-")), "db.sqlite");
    return {
      name,
      location: file,
      open: async () => track(await openSqlite(file)),
      dispose: async () => void (await closeAll()),
    };
  }
  const admin = new SQL(pgUrl as string);
  const database = `ac_d_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await admin.unsafe(`CREATE DATABASE ${database}`);
  rememberDatabase(database, pgUrl as string);
  const url = new URL(pgUrl as string);
  url.pathname = `/${database}`;
  return {
    name,
    location: url.toString(),
    open: async () => track(openPostgres(url.toString())),
    dispose: async () => {
      await closeAll();
      await dropDatabase(admin, database);
      forgetDatabase(database);
      await admin.close();
    },
  };
};

/** The tables of the database, by name. */
export const tableNames = async (driver: Driver): Promise<string[]> => {
  const sql =
    driver.dialect === "sqlite"
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
      : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name";
  return (await driver.all<{ name: string }>(sql)).map((r) => r.name);
};
