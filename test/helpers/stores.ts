// The store targets every contract suite runs against. PostgreSQL runs when AGENT_COMPUTER_TEST_PG_URL is
// set; in CI (CI=true) a missing URL is a failure, never a silent skip. Each suite gets its own database.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { openStore } from "../../app/agent_computer/src/store/open.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { WriteLane } from "../../app/agent_computer/src/store/sqlite/write-lane.ts";
import { dropDatabase } from "./pg-admin.ts";
import { forgetDatabase, rememberDatabase } from "./scratch-databases.ts";

export interface StoreTarget {
  name: "sqlite" | "postgres";
  /** Environment that makes a spawned binary use this store. */
  env: Record<string, string>;
  open(): Promise<Store>;
  /** Runs raw SQL against the target (for tests that age sessions or count rows). */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  dispose(): Promise<void>;
}

export const pgUrl = process.env.AGENT_COMPUTER_TEST_PG_URL;

if (!pgUrl && process.env.CI === "true") {
  throw new Error("CI=true but AGENT_COMPUTER_TEST_PG_URL is not set: the PostgreSQL suite must run in CI");
}

/** "postgres" is listed only when a server is configured; the skip is printed, not silent. */
export const storeNames: ("sqlite" | "postgres")[] = pgUrl ? ["sqlite", "postgres"] : ["sqlite"];
if (!pgUrl) console.warn("SKIPPED: PostgreSQL store suites (set AGENT_COMPUTER_TEST_PG_URL to run them)");

const sqliteTarget = async (): Promise<StoreTarget> => {
  const home = mkdtempSync(join(tmpdir(), "ac-store-"));
  // To bisect a bug against group commit, AGENT_COMPUTER_SQLITE_GROUP_COMMIT=0 reaches every SQLite suite.
  const groupCommit = process.env.AGENT_COMPUTER_SQLITE_GROUP_COMMIT;
  const env: Record<string, string> = {
    AGENT_COMPUTER_HOME: home,
    ...(groupCommit ? { AGENT_COMPUTER_SQLITE_GROUP_COMMIT: groupCommit } : {}),
  };
  const { Database } = await import("bun:sqlite");
  return {
    name: "sqlite",
    env,
    open: () => openStore(env),
    sql: async (text, params = []) => {
      const file = join(home, "agent-computer.sqlite");
      // Its own connection, so it takes the store's write lane: a store of this process may be mid-batch.
      return WriteLane.of(file).hold(() => {
        const db = new Database(file);
        db.run("PRAGMA busy_timeout = 5000");
        try {
          return db.prepare(text.replace(/\$(\d+)/g, "?$1")).all(...(params as never[])) as Record<string, unknown>[];
        } finally {
          db.close();
        }
      });
    },
    dispose: async () => {},
  };
};

const postgresTarget = async (): Promise<StoreTarget> => {
  const admin = new SQL(pgUrl as string);
  const name = `ac_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  // A copy of the run's migrated template (test/setup/pg-template.ts) when there is one.
  const template = process.env.AC_TEST_PG_TEMPLATE;
  await admin.unsafe(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  rememberDatabase(name, pgUrl as string);
  const url = new URL(pgUrl as string);
  url.pathname = `/${name}`;
  const db = new SQL(url.toString());
  const home = mkdtempSync(join(tmpdir(), "ac-store-pg-"));
  return {
    name: "postgres",
    env: { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: url.toString() },
    open: () => openStore({ AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: url.toString() }),
    sql: async (text, params = []) => [...((await db.unsafe(text, params)) as Record<string, unknown>[])],
    dispose: async () => {
      await db.close();
      await dropDatabase(admin, name);
      forgetDatabase(name);
      await admin.close();
    },
  };
};

export const createStoreTarget = (name: "sqlite" | "postgres"): Promise<StoreTarget> =>
  name === "sqlite" ? sqliteTarget() : postgresTarget();
