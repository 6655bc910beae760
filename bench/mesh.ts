// Mesh benchmarks (issue 2): in-process send throughput on SQLite and PostgreSQL, and inbox read time as the
// store grows. Writes bench/results/mesh.json. CLI start-up as whole processes is bench/startup.ts.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { newId } from "../app/agent_computer/src/domain/ids.ts";
import { readInbox } from "../app/agent_computer/src/domain/mesh/inbox.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore, type StoreUse } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { percentile, resultsDir, round, writeResults } from "./lib.ts";
import { depsFor, seedMessages, withAgents } from "./seed-mesh.ts";

const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;
// Every temp dir this bench makes, removed at the end: left behind, they fill the shared temp dir (a 1M-message
// store each run) and slow down everything that lists it.
const homes: string[] = [];

type Send = (i: number) => Promise<unknown>;

type Results = {
  in_process_send_throughput: Record<string, number | string>;
  in_process_send_throughput_run_spread: Record<string, { min: number; max: number }>;
} & Record<string, unknown>;

/** The last full run's results with this run's PostgreSQL figures (and its load) written over theirs. */
const withPostgresFigures = (measured: Results): Results => {
  const file = join(resultsDir, "mesh.json");
  const last = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Results) : measured;
  // Kept as it was: measured_at dates the SQLite figures; postgres_measured_at dates these.
  return {
    ...last,
    in_process_send_throughput: { ...last.in_process_send_throughput, ...measured.in_process_send_throughput },
    in_process_send_throughput_run_spread: {
      ...last.in_process_send_throughput_run_spread,
      ...measured.in_process_send_throughput_run_spread,
    },
    targets: measured.targets,
    postgres_load_average_at_end: measured.load_average_at_end,
    postgres_measured_at: new Date().toISOString(),
  } as Results;
};

/** A send as agent-send-cli makes it: authentication, expiry, presence, the message and its delivery. */
const meshSend =
  (store: Store, tokens: Record<string, string>): Send =>
  (i) =>
    sendMessage(depsFor(store), {
      from: "writer",
      token: tokens.writer,
      recipients: { kind: "to", agentIds: ["reader"] },
      body: `m${i}`,
    });

/** The statements of such a send through the same store, without the domain's logic: the ceiling of meshSend. */
const statementsOnlySend =
  (store: Store): Send =>
  (i) =>
    store.write(async (tx) => {
      const now = Date.now();
      await tx.mesh.callerState("writer", now);
      const slot = await tx.mesh.takeInboxSlot("reader", now);
      const id = newId("msg");
      await tx.mesh.insertMessage({
        id,
        sender: "writer",
        kind: "message",
        body: `m${i}`,
        threadId: null,
        idempotencyKey: null,
        createdAt: now,
      });
      await tx.mesh.insertDelivery({
        messageId: id,
        recipient: "reader",
        seq: slot?.seq ?? 0,
        state: "pending",
        sessionId: slot?.sessionId ?? null,
      });
    });

/**
 * The least a send can write, in one statement through the same store and group commit: the message and its
 * delivery (insertAndDeliver), with no authentication, policy, rate-limit or webhook read. On PostgreSQL this is
 * the ceiling of any design that stores each send with statements of its own: what one statement per send costs
 * the client and the server together.
 */
const oneStatementSend =
  (store: Store): Send =>
  (i) =>
    store.write(
      async (tx) => {
        const now = Date.now();
        const message = {
          id: newId("msg"),
          sender: "writer",
          kind: "message" as const,
          body: `m${i}`,
          threadId: null,
          idempotencyKey: null,
          createdAt: now,
        };
        await tx.mesh.insertAndDeliver(message, "reader", now);
      },
      { send: { sender: "writer" } },
    );

/** Sends per second with `inFlight` sends awaiting at once (1 = strictly one after another). */
const sendThroughput = async (send: Send, count: number, inFlight: number): Promise<number> => {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) await send(next);
    }),
  );
  return round(count / ((performance.now() - start) / 1000), 0);
};

const readOnce = async (store: Store, token: string): Promise<number> => {
  const start = performance.now();
  await readInbox(depsFor(store), { agentId: "reader", token, limit: 50 });
  return performance.now() - start;
};

const freshSqlite = async (use: StoreUse = {}): Promise<{ store: Store; home: string }> => {
  const home = mkdtempSync(join(tmpdir(), "ac-bench-"));
  homes.push(home);
  return { store: await openStore({ AGENT_COMPUTER_HOME: home }, use), home };
};

// 1. In-process send throughput, as a long-lived process (the worker) runs the store: checkpoints on their own
// thread. The same figures with inline checkpoints (how a one-shot command's store runs) are kept beside them.
// Beside them, "_statements_only": the same statements through a long-lived store without the domain's logic,
// the ceiling of this design on this machine. The configurations take turns, nine timed runs each after a
// warm-up, so a machine whose speed drifts moves them alike; each figure is the median run, with the slowest
// and fastest run beside it.
const throughput: Record<string, number | string> = {};
const runSpread: Record<string, { min: number; max: number }> = {};
// --postgres-only: only the PostgreSQL figures are measured, and written over those of the last full run.
const postgresOnly = process.argv.includes("--postgres-only");
const configs = postgresOnly
  ? []
  : await Promise.all(
      [
        { label: "", use: { longLived: true }, statementsOnly: false },
        { label: "_inline_checkpoints", use: {}, statementsOnly: false },
        { label: "_statements_only", use: { longLived: true }, statementsOnly: true },
      ].map(async ({ label, use, statementsOnly }) => {
        const { store, home } = await freshSqlite(use);
        const tokens = await withAgents(store, home);
        return { label, store, send: statementsOnly ? statementsOnlySend(store) : meshSend(store, tokens), runs: [] as number[] };
      }),
    );
for (const [inFlight, count, name] of postgresOnly
  ? []
  : ([
      [1, 2000, "one_at_a_time"],
      [64, 10000, "64_in_flight"],
      [256, 10000, "256_in_flight"],
    ] as const)) {
  for (const c of configs) {
    c.runs = [];
    await sendThroughput(c.send, count / 4, inFlight);
  }
  for (let round = 0; round < 9; round++) {
    for (const c of configs) c.runs.push(await sendThroughput(c.send, count, inFlight));
  }
  for (const c of configs) {
    const key = `sqlite_sends_per_s_${name}${c.label}`;
    throughput[key] = percentile(c.runs, 50);
    runSpread[key] = { min: Math.min(...c.runs), max: Math.max(...c.runs) };
  }
}
for (const c of configs) await c.store.close();
if (pgUrl) {
  const admin = new SQL(pgUrl);
  const name = `ac_bench_${process.pid}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const home = mkdtempSync(join(tmpdir(), "ac-bench-pg-"));
  homes.push(home);
  const store = await openStore({ AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: url.toString() });
  const pgTokens = await withAgents(store, home);
  const send = meshSend(store, pgTokens);
  const ceiling = oneStatementSend(store);
  // Five timed runs each after a warm-up, in turns, so a machine whose speed drifts moves them alike. The last
  // level is the one-statement ceiling (oneStatementSend) at 64 in flight, in the same turns.
  const levels = [
    [1, 1000, "one_at_a_time", send],
    [8, 4000, "8_in_flight", send],
    [64, 10000, "64_in_flight", send],
    [64, 10000, "64_in_flight_one_statement_ceiling", ceiling],
  ] as const;
  const pgRuns: Record<string, number[]> = Object.fromEntries(levels.map(([, , label]) => [label, []]));
  for (const [inFlight, count, , run] of levels) await sendThroughput(run, count / 4, inFlight);
  for (let round = 0; round < 5; round++) {
    for (const [inFlight, count, label, run] of levels) pgRuns[label]?.push(await sendThroughput(run, count, inFlight));
  }
  for (const [, , label] of levels) {
    const runs = pgRuns[label] as number[];
    throughput[`postgres_sends_per_s_${label}`] = percentile(runs, 50);
    runSpread[`postgres_sends_per_s_${label}`] = { min: Math.min(...runs), max: Math.max(...runs) };
  }
  await store.close();
  await dropDatabase(admin, name);
  await admin.close();
} else throughput.postgres_sends_per_s = "skipped: set AGENT_COMPUTER_BENCH_PG_URL";

// 2. Inbox read time as the store grows (50 pending for the reader each time). The three stores are read in
// turns of 100 reads, so a machine that changes speed during the run moves every size alike.
const sizes = postgresOnly ? [] : [1_000, 100_000, 1_000_000];
const stores: { size: number; store: Store; token: string; samples: number[] }[] = [];
for (const size of sizes) {
  const run = await freshSqlite();
  const t = await withAgents(run.store, run.home);
  await seedMessages(run.store, size, Date.now());
  for (let i = 0; i < 50; i++) {
    await sendMessage(depsFor(run.store), {
      from: "writer",
      token: t.writer,
      recipients: { kind: "to", agentIds: ["reader"] },
      body: `p${i}`,
    });
  }
  stores.push({ size, store: run.store, token: t.reader as string, samples: [] });
}
for (const s of stores) for (let i = 0; i < 200; i++) await readOnce(s.store, s.token);
for (let round = 0; round < 20; round++) {
  for (const s of stores) for (let i = 0; i < 100; i++) s.samples.push(await readOnce(s.store, s.token));
}
const inboxRead: Record<string, number> = {};
for (const s of stores) {
  inboxRead[`p50_ms_at_${s.size}`] = round(percentile(s.samples, 50), 3);
  await s.store.close();
}
const reads = Object.values(inboxRead);
const spread = round((Math.max(...reads) - Math.min(...reads)) / Math.min(...reads), 3);

const [load1, load5] = loadavg();
const measured = {
  in_process_send_throughput: throughput,
  in_process_send_throughput_run_spread: runSpread,
  inbox_read_sqlite: { ...inboxRead, relative_spread: spread },
  targets: { sqlite_sends_per_s_min: 20_000, postgres_sends_per_s_64_in_flight_min: 5_000, inbox_read_relative_spread_max: 0.2 },
  load_average_at_end: { "1m": round(load1 ?? 0), "5m": round(load5 ?? 0) },
};
const results = postgresOnly ? withPostgresFigures(measured) : measured;
for (const home of homes) rmSync(home, { recursive: true, force: true });
const file = writeResults("mesh", results);
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${file}`);
