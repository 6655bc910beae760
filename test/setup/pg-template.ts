// vitest globalSetup: one migrated PostgreSQL database per test run, which every store suite's database is copied
// from (CREATE DATABASE … TEMPLATE), so no suite runs the migrations again (2–4 s each on a busy 2-core machine).
// Test files find it in AC_TEST_PG_TEMPLATE; it is dropped when the run ends. Without a server there is none.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { openStore } from "../../app/agent_computer/src/store/open.ts";
import { dropDatabase } from "../helpers/pg-admin.ts";

export default async function migratedTemplate(): Promise<(() => Promise<void>) | undefined> {
  const url = process.env.AGENT_COMPUTER_TEST_PG_URL;
  if (!url) return undefined;
  const admin = new SQL(url);
  const name = `ac_tpl_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const home = mkdtempSync(join(tmpdir(), "ac-tpl-"));
  try {
    const target = new URL(url);
    target.pathname = `/${name}`;
    const store = await openStore({ AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: target.toString() });
    await store.close();
  } catch (error) {
    await dropDatabase(admin, name);
    await admin.close();
    throw error;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.env.AC_TEST_PG_TEMPLATE = name;
  return async () => {
    await dropDatabase(admin, name);
    await admin.close();
  };
}
