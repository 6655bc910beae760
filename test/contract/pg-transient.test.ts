// PostgreSQL's passing states are STORE_UNAVAILABLE (exit 8, retryable), never INTERNAL, and a write that the
// server rolled back whole is re-run by itself: a server starting up or full, a connection ended under a
// transaction, deadlocks that keep coming. A connection lost during COMMIT is not re-run: its outcome is unknown.
// The failures a shared server cannot be made to have on demand come from a TCP stand-in (pg-proxy.ts).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { AppError } from "../../app/agent_computer/src/errors.ts";
import { ANSWER_DEADLINE_MS } from "../../app/agent_computer/src/store/postgres/answer-watch.ts";
import { openPostgres, type PostgresOptions } from "../../app/agent_computer/src/store/postgres/driver.ts";
import { SESSION_SETTINGS } from "../../app/agent_computer/src/store/postgres/session-settings.ts";
import type { Driver } from "../../app/agent_computer/src/store/sql/db.ts";
import { runBin } from "../helpers/bin.ts";
import { createDriverTarget, type DriverTarget } from "../helpers/drivers.ts";
import { type PgProxy, STARTING_UP, startPgProxy, TOO_MANY_CLIENTS } from "../helpers/pg-proxy.ts";
import { storeNames } from "../helpers/stores.ts";

const onPostgres = storeNames.includes("postgres");

const caught = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.skipIf(!onPostgres)("transient PostgreSQL failures", () => {
  let target: DriverTarget;
  let proxy: PgProxy;
  const drivers: Driver[] = [];
  const viaProxy = (options: PostgresOptions = {}): Driver => {
    const driver = openPostgres(proxy.url.replace(new URL(proxy.url).pathname, new URL(target.location).pathname), options);
    drivers.push(driver);
    return driver;
  };

  beforeAll(async () => {
    target = await createDriverTarget("postgres");
    const direct = await target.open();
    await direct.exec("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)");
    proxy = await startPgProxy(target.location);
  });
  afterEach(async () => {
    proxy.refuseNext(STARTING_UP, 0);
    proxy.cutAtCommit(0);
    proxy.silence(false);
    await Promise.all(drivers.splice(0).map((d) => d.close().catch(() => undefined)));
  });
  afterAll(async () => {
    proxy?.close();
    await target?.dispose();
  });

  const notes = async (id: string): Promise<number> =>
    Number((await (await target.open()).get<{ n: unknown }>("SELECT COUNT(*) AS n FROM notes WHERE id = $1", [id]))?.n);

  test.each([
    ["starting up", STARTING_UP],
    ["full (too many clients)", TOO_MANY_CLIENTS],
  ])("a server %s for a moment: the transaction waits it out and commits once", async (_, refusal) => {
    proxy.refuseNext(refusal, 2);
    let runs = 0;
    await viaProxy().transaction(async (db) => {
      runs++;
      await db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", [`after-${refusal.sqlstate}`, "x"]);
    });
    expect(proxy.stats.refused).toBeGreaterThanOrEqual(2);
    expect(runs).toBe(1);
    expect(await notes(`after-${refusal.sqlstate}`)).toBe(1);
  });

  test("a server that stays in start-up: STORE_UNAVAILABLE saying so, nothing written, no INTERNAL", async () => {
    proxy.refuseNext(STARTING_UP, 1000);
    const error = await caught(
      viaProxy().transaction((db) => db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["never", "x"])),
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("STORE_UNAVAILABLE");
    expect((error as AppError).message).toMatch(/starting up.*nothing was written/);
    expect((error as AppError).hint).toMatch(/retry/);
    expect(await notes("never")).toBe(0);
  });

  test("the CLI against a server in start-up exits 8 STORE_UNAVAILABLE with the retry hint and no stack trace", async () => {
    proxy.refuseNext(STARTING_UP, 1000);
    const url = proxy.url.replace(new URL(proxy.url).pathname, new URL(target.location).pathname);
    const result = await runBin("agents-list-cli", ["--json"], { env: { AGENT_COMPUTER_DATABASE_URL: url } });
    expect(result.exitCode, result.stderr).toBe(8);
    const error = JSON.parse(result.stderr).error as { code: string; message: string; hint: string };
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toMatch(/starting up/);
    expect(error.hint).toMatch(/retry/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test("the server ending the connection under a transaction (57P01): the transaction runs again and commits once", async () => {
    const driver = await target.open();
    const killer = await target.open();
    let runs = 0;
    await driver.transaction(async (db) => {
      runs++;
      await db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["survivor", `run ${runs}`]);
      if (runs === 1) {
        const me = await db.get<{ pid: unknown }>("SELECT pg_backend_pid() AS pid");
        await killer.get("SELECT pg_terminate_backend($1)", [me?.pid]);
        await db.get("SELECT 1 AS still_there");
      }
    });
    expect(runs).toBe(2);
    const rows = await killer.all<{ body: string }>("SELECT body FROM notes WHERE id = $1", ["survivor"]);
    expect(rows).toEqual([{ body: "run 2" }]);
  });

  test("the connection lost while committing: STORE_UNAVAILABLE, outcome unknown, and the transaction is not re-run", async () => {
    proxy.cutAtCommit(1);
    let runs = 0;
    const error = await caught(
      viaProxy().transaction(async (db) => {
        runs++;
        await db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["in-doubt", "x"]);
      }),
    );
    expect(proxy.stats.cutAtCommit).toBe(1);
    expect(runs).toBe(1);
    expect((error as AppError).code).toBe("STORE_UNAVAILABLE");
    expect((error as AppError).message).toMatch(/while committing: the write may or may not have been applied/);
    expect((error as AppError).details).toMatchObject({ outcome: "unknown" });
    expect((error as AppError).hint).toMatch(/idempotency-key/);
  });

  test("a read-only snapshot whose COMMIT is cut has nothing in doubt: it is read again", async () => {
    proxy.cutAtCommit(1);
    const cutBefore = proxy.stats.cutAtCommit;
    let runs = 0;
    const row = await viaProxy().snapshot(async (db) => {
      runs++;
      return db.get<{ n: unknown }>("SELECT COUNT(*) AS n FROM notes");
    });
    expect(proxy.stats.cutAtCommit).toBe(cutBefore + 1);
    expect(runs).toBe(2);
    expect(Number(row?.n)).toBeGreaterThanOrEqual(0);
  });

  // A network gone silent (every packet dropped) fails nothing by itself: without the answer watch a statement
  // waits until TCP gives up, a quarter of an hour. The tests shorten the deadline; the shipped one is checked below.
  const DEADLINE_MS = 1500;

  test("a connection that goes silent mid-transaction: STORE_UNAVAILABLE within the deadline, nothing written, not re-run; the next write gets a fresh connection", async () => {
    const driver = viaProxy({ answerDeadlineMs: DEADLINE_MS });
    await driver.transaction((db) => db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["before-silence", "x"]));
    let runs = 0;
    const started = performance.now();
    const error = await caught(
      driver.transaction(async (db) => {
        runs++;
        proxy.silence(true);
        await db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["in-silence", "x"]);
      }),
    );
    const waited = performance.now() - started;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("STORE_UNAVAILABLE");
    expect((error as AppError).message).toMatch(/did not answer for 1\.5 s.*nothing was written/);
    expect((error as AppError).details).toMatchObject({ outcome: "not_applied" });
    expect(runs).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(waited).toBeLessThan(DEADLINE_MS + 5_000);
    proxy.silence(false);
    await driver.transaction((db) => db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["after-silence", "x"]));
    expect([await notes("before-silence"), await notes("in-silence"), await notes("after-silence")]).toEqual([1, 0, 1]);
  });

  test("through a transaction pooler the silence may be the pooler's queue too, and the message says so", async () => {
    const url = new URL(proxy.url.replace(new URL(proxy.url).pathname, new URL(target.location).pathname));
    url.searchParams.set("pool_mode", "transaction");
    const driver = openPostgres(url.toString(), { answerDeadlineMs: DEADLINE_MS });
    drivers.push(driver);
    await driver.transaction((db) => db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["pooled-before", "x"]));
    proxy.silence(true);
    const error = await caught(
      driver.transaction((db) => db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["pooled-silence", "x"])),
    );
    expect((error as AppError).code).toBe("STORE_UNAVAILABLE");
    expect((error as AppError).message).toMatch(
      /did not answer for 1\.5 s \(the network to it may be down, or the pooler has no free server connection\)/,
    );
  });

  test("silence from the moment COMMIT is sent: STORE_UNAVAILABLE with the outcome unknown", async () => {
    const driver = viaProxy({ answerDeadlineMs: DEADLINE_MS });
    proxy.silence("at-commit");
    const error = await caught(
      driver.transaction((db) => db.run("INSERT INTO notes (id, body) VALUES ($1, $2)", ["commit-in-silence", "x"])),
    );
    expect((error as AppError).code).toBe("STORE_UNAVAILABLE");
    expect((error as AppError).message).toMatch(/did not answer.*may or may not have been applied/);
    expect((error as AppError).details).toMatchObject({ outcome: "unknown" });
  });

  test("statements that run long on purpose (migrations) are not cut off; the shipped deadline outlasts statement_timeout", async () => {
    const driver = viaProxy({ answerDeadlineMs: 500 });
    await driver.withoutAnswerDeadline?.(() => driver.exec("SELECT pg_sleep(1)"));
    // Watched, a statement silent for longer than the deadline is taken for a dead network: the reason the shipped
    // deadline is longer than any statement the server lets run (it cancels them at statement_timeout).
    const error = await caught(driver.exec("SELECT pg_sleep(1)"));
    expect((error as AppError).code).toBe("STORE_UNAVAILABLE");
    const seconds = (setting: string) => Number(/^(\d+)s$/.exec(setting)?.[1]);
    expect(ANSWER_DEADLINE_MS).toBeGreaterThan(seconds(SESSION_SETTINGS.statement_timeout) * 1000);
  });

  test("deadlocks that keep coming: re-run, then STORE_UNAVAILABLE naming the attempts, not INTERNAL", async () => {
    const driver = await target.open();
    let runs = 0;
    const error = await caught(
      driver.transaction(async () => {
        runs++;
        throw Object.assign(new Error("deadlock detected"), { errno: "40P01", code: "ERR_POSTGRES_SERVER_ERROR" });
      }),
    );
    expect(runs).toBeGreaterThan(1);
    expect((error as AppError).code).toBe("STORE_UNAVAILABLE");
    expect((error as AppError).message).toMatch(new RegExp(`deadlocked.*\\(${runs} attempts\\)`));
  });
});
