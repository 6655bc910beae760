// What SQLite itself spends on a batch of sends: the store's own statements (meshRepo over the driver), 64
// sends per transaction as group commit batches them, without the queue or the domain's logic. Four shapes:
// a savepoint around each send (every batch before group commit ran bare) or none, and SQLite's automatic
// checkpoint inline (a one-shot command's store) or off (measurement only: the WAL grows without bound).
// Writes bench/results/sqlite-batch.json.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import { newId } from "../app/agent_computer/src/domain/ids.ts";
import { resolvePaths } from "../app/agent_computer/src/paths.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Driver } from "../app/agent_computer/src/store/sql/db.ts";
import { meshRepo } from "../app/agent_computer/src/store/sql/mesh.ts";
import { webhookRepo } from "../app/agent_computer/src/store/sql/outbound-webhooks.ts";
import { openSqlite } from "../app/agent_computer/src/store/sqlite/driver.ts";
import { percentile, round, writeResults } from "./lib.ts";

const BATCH = 64;
const SENDS_PER_RUN = 10_000;
const RUNS = 7;

interface Shape {
  label: string;
  savepoints: boolean;
  checkpoints: boolean;
}

const SHAPES: Shape[] = [
  { label: "savepoint_per_send_inline_checkpoints", savepoints: true, checkpoints: true },
  { label: "bare_inline_checkpoints", savepoints: false, checkpoints: true },
  { label: "savepoint_per_send_no_checkpoints", savepoints: true, checkpoints: false },
  { label: "bare_no_checkpoints", savepoints: false, checkpoints: false },
];

/** A migrated store with a writer and a checked-in reader, reopened as a bare driver. */
const prepared = async (shape: Shape) => {
  const home = mkdtempSync(join(tmpdir(), "ac-bench-batch-"));
  const env = { AGENT_COMPUTER_HOME: home };
  const store = await openStore(env);
  for (const agentId of ["reader", "writer"]) {
    await checkIn({ store, now: () => Date.now(), host: "bench", newId }, { agentId, token: undefined, ttlSeconds: 86_400 });
  }
  await store.close();
  const driver = await openSqlite(resolvePaths(env).sqliteFile);
  if (!shape.checkpoints) await driver.exec("PRAGMA wal_autocheckpoint = 0");
  return { shape, home, driver, runs: [] as number[] };
};

/** The statements of one send as the mesh makes it: caller state, inbox slot, message, delivery. */
const sendStatements = async (mesh: ReturnType<typeof meshRepo>, i: number): Promise<void> => {
  const now = Date.now();
  await mesh.callerState("writer", now);
  const slot = await mesh.takeInboxSlot("reader", now);
  const id = newId("msg");
  await mesh.insertMessage({
    id,
    sender: "writer",
    kind: "message",
    body: `m${i}`,
    threadId: null,
    idempotencyKey: null,
    createdAt: now,
  });
  await mesh.insertDelivery({
    messageId: id,
    recipient: "reader",
    seq: slot?.seq ?? 0,
    state: "pending",
    sessionId: slot?.sessionId ?? null,
  });
};

/** Sends per second over `count` sends, BATCH to a transaction. */
const run = async (driver: Driver, savepoints: boolean, count: number): Promise<number> => {
  const mesh = meshRepo(driver, webhookRepo(driver));
  const start = performance.now();
  for (let done = 0; done < count; done += BATCH) {
    await driver.exec("BEGIN IMMEDIATE");
    for (let i = done; i < Math.min(count, done + BATCH); i++) {
      if (savepoints) await driver.exec("SAVEPOINT member");
      await sendStatements(mesh, i);
      if (savepoints) await driver.exec("RELEASE member");
    }
    await driver.exec("COMMIT");
  }
  return round(count / ((performance.now() - start) / 1000), 0);
};

const configs = [];
for (const shape of SHAPES) configs.push(await prepared(shape));
for (const c of configs) await run(c.driver, c.shape.savepoints, SENDS_PER_RUN / 4);
// The shapes take turns, so a machine whose speed drifts moves them alike.
for (let i = 0; i < RUNS; i++) {
  for (const c of configs) c.runs.push(await run(c.driver, c.shape.savepoints, SENDS_PER_RUN));
}
const sendsPerS: Record<string, number> = {};
const spread: Record<string, { min: number; max: number }> = {};
for (const c of configs) {
  sendsPerS[c.shape.label] = percentile(c.runs, 50);
  spread[c.shape.label] = { min: Math.min(...c.runs), max: Math.max(...c.runs) };
  await c.driver.close();
  rmSync(c.home, { recursive: true, force: true });
}
const results = {
  what: `SQLite sends per second, ${BATCH} to a transaction, the store's own statements without the queue; median of ${RUNS} runs of ${SENDS_PER_RUN}`,
  sends_per_s: sendsPerS,
  run_spread: spread,
};
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${writeResults("sqlite-batch", results)}`);
