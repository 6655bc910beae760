// Mesh benchmarks (issue 2): CLI start-up as whole processes beside the Bun floor, in-process send
// throughput on SQLite and PostgreSQL, and inbox read time as the store grows. Writes bench/results/mesh.json.

import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import type { Deps } from "../app/agent_computer/src/domain/deps.ts";
import { newId } from "../app/agent_computer/src/domain/ids.ts";
import { readInbox } from "../app/agent_computer/src/domain/mesh/inbox.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore, type StoreUse } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { percentile, round, summarize, timeProcess, timeProcessesInterleaved, writeResults } from "./lib.ts";
import { seedMessages } from "./seed-mesh.ts";

const root = join(import.meta.dir, "..");
const bun = join(root, "node_modules/bun/bin/bun.exe");
const runs = Number(process.env.BENCH_RUNS ?? 60);
const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;

const depsFor = (store: Store): Deps => ({ store, now: () => Date.now(), host: "bench", newId });

const withAgents = async (store: Store, dir: string) => {
  const tokens: Record<string, string> = {};
  for (const agentId of ["reader", "writer"]) {
    const r = await checkIn(depsFor(store), { agentId, token: undefined, ttlSeconds: 86_400 });
    tokens[agentId] = r.agent_token as string;
    writeFileSync(join(dir, `${agentId}.token`), tokens[agentId] as string, { mode: 0o600 });
  }
  return tokens;
};

type Send = (i: number) => Promise<unknown>;

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
  return { store: await openStore({ AGENT_COMPUTER_HOME: home }, use), home };
};

// 1. Whole-process CLI timings on a store holding 100 000 messages, beside the Bun floor.
const floorScript = join(mkdtempSync(join(tmpdir(), "ac-floor-")), "one.ts");
writeFileSync(floorScript, "console.log(1);\n");
const big = await freshSqlite();
const tokens = await withAgents(big.store, big.home);
await seedMessages(big.store, 100_000, Date.now());
for (let i = 0; i < 20; i++) {
  await sendMessage(depsFor(big.store), {
    from: "writer",
    token: tokens.writer,
    recipients: { kind: "to", agentIds: ["reader"] },
    body: `pending ${i}`,
  });
}
await big.store.close();
// Rate limits stay on (their statements are part of a send) but high enough for the repeated runs.
const env = {
  PATH: process.env.PATH,
  HOME: big.home,
  AGENT_COMPUTER_HOME: big.home,
  AGENT_COMPUTER_RATE_SEND_PER_NAME: "1000000/60",
  AGENT_COMPUTER_RATE_SEND_PER_HOST: "1000000/60",
};
const forms = existsSync(join(root, "dist/agent-computer")) ? ["compiled", "source"] : ["source"];
const cliCommands = (form: string): Parameters<typeof timeProcessesInterleaved>[0] => {
  const formEnv = { ...env, AGENT_COMPUTER_FORM: form };
  return {
    bun_one_line_script: { argv: [bun, floorScript], env },
    "agent-inbox-cli": {
      argv: [join(root, "bin/agent-inbox-cli"), "--agent-id", "reader", "--token-file", join(big.home, "reader.token")],
      env: formEnv,
    },
    "agent-send-cli": {
      argv: [
        join(root, "bin/agent-send-cli"),
        ...["--from", "writer", "--token-file", join(big.home, "writer.token"), "--to", "reader", "--body", "bench"],
      ],
      env: formEnv,
    },
  };
};
// One rotation per form (floor, inbox, send in turns), so a machine that drifts moves every figure alike. The
// floor is also timed alone, in a block of runs as hyperfine would: beside a large executable it comes out
// slower, which would flatter the ratio. The ratio divides by the faster of the two floor figures.
const cli: Record<string, Record<string, ReturnType<typeof summarize>>> = {};
const floorFor: Record<string, number> = {};
for (const form of forms) {
  const alone = summarize(timeProcess([bun, floorScript], env, runs));
  const samples = timeProcessesInterleaved(cliCommands(form), runs);
  cli[form] = {
    bun_one_line_script_alone: alone,
    ...Object.fromEntries(Object.entries(samples).map(([name, times]) => [name, summarize(times)])),
  };
  floorFor[form] = Math.min(alone.p50_ms, cli[form].bun_one_line_script?.p50_ms ?? Number.POSITIVE_INFINITY);
}

// 2. In-process send throughput, as a long-lived process (the worker) runs the store: checkpoints on their own
// thread. The same figures with inline checkpoints (how a one-shot command's store runs) are kept beside them.
// Beside them, "_statements_only": the same statements through a long-lived store without the domain's logic,
// the ceiling of this design on this machine. The configurations take turns, nine timed runs each after a
// warm-up, so a machine whose speed drifts moves them alike; each figure is the median run, with the slowest
// and fastest run beside it.
const throughput: Record<string, number | string> = {};
const runSpread: Record<string, { min: number; max: number }> = {};
const configs = await Promise.all(
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
for (const [inFlight, count, name] of [
  [1, 2000, "one_at_a_time"],
  [64, 10000, "64_in_flight"],
  [256, 10000, "256_in_flight"],
] as const) {
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
  const store = await openStore({ AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: url.toString() });
  const pgTokens = await withAgents(store, home);
  throughput.postgres_sends_per_s_one_at_a_time = await sendThroughput(meshSend(store, pgTokens), 2000, 1);
  throughput.postgres_sends_per_s_8_in_flight = await sendThroughput(meshSend(store, pgTokens), 4000, 8);
  await store.close();
  await dropDatabase(admin, name);
  await admin.close();
} else throughput.postgres_sends_per_s = "skipped: set AGENT_COMPUTER_BENCH_PG_URL";

// 3. Inbox read time as the store grows (50 pending for the reader each time). The three stores are read in
// turns of 100 reads, so a machine that changes speed during the run moves every size alike.
const sizes = [1_000, 100_000, 1_000_000];
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

const results = {
  cli_wall_time_on_100k_messages: cli,
  cli_floor_p50_ms: floorFor,
  cli_p50_over_floor: Object.fromEntries(
    Object.entries(cli).flatMap(([form, figures]) =>
      Object.entries(figures)
        .filter(([name]) => !name.startsWith("bun_one_line_script"))
        .map(([name, f]) => [`${name} (${form})`, round(f.p50_ms / (floorFor[form] ?? Number.NaN))]),
    ),
  ),
  in_process_send_throughput: throughput,
  in_process_send_throughput_run_spread: runSpread,
  inbox_read_sqlite: { ...inboxRead, relative_spread: spread },
  targets: { cli_p50_over_floor_max: 2, sqlite_sends_per_s_min: 20_000, inbox_read_relative_spread_max: 0.2 },
};
const file = writeResults("mesh", results);
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${file}`);
