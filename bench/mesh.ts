// Mesh benchmarks (issue 2): CLI start-up as whole processes beside the Bun floor, in-process send
// throughput on SQLite and PostgreSQL, and inbox read time as the store grows. Writes bench/results/mesh.json.

import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { newId } from "../app/agent_computer/src/cli/mesh/deps.ts";
import { checkIn } from "../app/agent_computer/src/domain/mesh/checkin.ts";
import type { MeshDeps } from "../app/agent_computer/src/domain/mesh/deps.ts";
import { readInbox } from "../app/agent_computer/src/domain/mesh/inbox.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { round, summarize, timeProcess, writeResults } from "./lib.ts";
import { seedMessages } from "./seed-mesh.ts";

const root = join(import.meta.dir, "..");
const bun = join(root, "node_modules/bun/bin/bun.exe");
const runs = Number(process.env.BENCH_RUNS ?? 30);
const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;

const depsFor = (store: Store): MeshDeps => ({ store, now: Date.now(), host: "bench", newId });

const withAgents = async (store: Store, dir: string) => {
  const tokens: Record<string, string> = {};
  for (const agentId of ["reader", "writer"]) {
    const r = await checkIn(depsFor(store), { agentId, token: undefined, ttlSeconds: 86_400 });
    tokens[agentId] = r.agent_token as string;
    writeFileSync(join(dir, `${agentId}.token`), tokens[agentId] as string, { mode: 0o600 });
  }
  return tokens;
};

/** Sends per second with `inFlight` sends awaiting at once (1 = strictly one after another). */
const sendThroughput = async (store: Store, tokens: Record<string, string>, count: number, inFlight: number): Promise<number> => {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) {
        await sendMessage(depsFor(store), {
          from: "writer",
          token: tokens.writer,
          recipients: { kind: "to", agentIds: ["reader"] },
          body: `m${next}`,
        });
      }
    }),
  );
  return round(count / ((performance.now() - start) / 1000), 0);
};

const inboxReadMs = async (store: Store, token: string, reads: number): Promise<number> => {
  for (let i = 0; i < reads; i++) await readInbox(depsFor(store), { agentId: "reader", token, limit: 50 });
  const samples: number[] = [];
  for (let i = 0; i < reads; i++) {
    const start = performance.now();
    await readInbox(depsFor(store), { agentId: "reader", token, limit: 50 });
    samples.push(performance.now() - start);
  }
  return summarize(samples).p50_ms;
};

const freshSqlite = async (): Promise<{ store: Store; home: string }> => {
  const home = mkdtempSync(join(tmpdir(), "ac-bench-"));
  return { store: await openStore({ AGENT_COMPUTER_HOME: home }), home };
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
const env = { PATH: process.env.PATH, HOME: big.home, AGENT_COMPUTER_HOME: big.home };
const forms = existsSync(join(root, "dist/agent-computer")) ? ["compiled", "source"] : ["source"];
const cli: Record<string, unknown> = { bun_one_line_script: summarize(timeProcess([bun, floorScript], env, runs)) };
for (const form of forms) {
  const formEnv = { ...env, AGENT_COMPUTER_FORM: form };
  cli[`agent-inbox-cli (${form})`] = summarize(
    timeProcess(
      [join(root, "bin/agent-inbox-cli"), "--agent-id", "reader", "--token-file", join(big.home, "reader.token")],
      formEnv,
      runs,
    ),
  );
  cli[`agent-send-cli (${form})`] = summarize(
    timeProcess(
      [
        join(root, "bin/agent-send-cli"),
        "--from",
        "writer",
        "--token-file",
        join(big.home, "writer.token"),
        "--to",
        "reader",
        "--body",
        "bench",
      ],
      formEnv,
      runs,
    ),
  );
}

// 2. In-process send throughput.
const sqliteRun = await freshSqlite();
const sqliteTokens = await withAgents(sqliteRun.store, sqliteRun.home);
const throughput: Record<string, number | string> = {
  sqlite_sends_per_s_one_at_a_time: await sendThroughput(sqliteRun.store, sqliteTokens, 5000, 1),
  sqlite_sends_per_s_64_in_flight: await sendThroughput(sqliteRun.store, sqliteTokens, 20000, 64),
};
await sqliteRun.store.close();
if (pgUrl) {
  const admin = new SQL(pgUrl);
  const name = `ac_bench_${process.pid}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const home = mkdtempSync(join(tmpdir(), "ac-bench-pg-"));
  const store = await openStore({ AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: url.toString() });
  const pgTokens = await withAgents(store, home);
  throughput.postgres_sends_per_s_one_at_a_time = await sendThroughput(store, pgTokens, 2000, 1);
  throughput.postgres_sends_per_s_8_in_flight = await sendThroughput(store, pgTokens, 4000, 8);
  await store.close();
  await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.close();
} else throughput.postgres_sends_per_s = "skipped: set AGENT_COMPUTER_BENCH_PG_URL";

// 3. Inbox read time as the store grows (50 pending for the reader each time).
const inboxRead: Record<string, number> = {};
for (const size of [1_000, 100_000, 1_000_000]) {
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
  inboxRead[`p50_ms_at_${size}`] = await inboxReadMs(run.store, t.reader as string, 1000);
  await run.store.close();
}
const reads = Object.values(inboxRead);
const spread = round((Math.max(...reads) - Math.min(...reads)) / Math.min(...reads), 3);

const floor = (cli.bun_one_line_script as { p50_ms: number }).p50_ms;
const results = {
  cli_wall_time_on_100k_messages: cli,
  cli_p50_over_floor: Object.fromEntries(
    Object.entries(cli)
      .filter(([k]) => k !== "bun_one_line_script")
      .map(([k, v]) => [k, round((v as { p50_ms: number }).p50_ms / floor)]),
  ),
  in_process_send_throughput: throughput,
  inbox_read_sqlite: { ...inboxRead, relative_spread: spread },
  targets: { cli_p50_over_floor_max: 2, sqlite_sends_per_s_min: 20_000, inbox_read_relative_spread_max: 0.2 },
};
const file = writeResults("mesh", results);
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${file}`);
