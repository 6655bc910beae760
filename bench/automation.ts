// Automation benchmarks (issue 4), on SQLite and PostgreSQL, beside a bare Bun spawn measured in the same run:
// trigger-to-script-start latency (checkback due → the script's first line), runs/s with N concurrent runs, and
// the claim+complete rate of the store without spawning. Writes bench/results/automation.json.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import { claimAttempts, finishAttempt } from "../app/agent_computer/src/domain/automation/attempts.ts";
import { createJob } from "../app/agent_computer/src/domain/automation/jobs.ts";
import { startManualRun } from "../app/agent_computer/src/domain/automation/manual-run.ts";
import { createCheckback } from "../app/agent_computer/src/domain/automation/triggers.ts";
import type { Deps } from "../app/agent_computer/src/domain/deps.ts";
import { newId } from "../app/agent_computer/src/domain/ids.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { round, summarize, writeResults } from "./lib.ts";

const root = join(import.meta.dir, "..");
const bun = join(root, "node_modules/bun/bin/bun.exe");
const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;
const LATENCY_SAMPLES = Number(process.env.BENCH_RUNS ?? 30);
const RUNS_PER_THROUGHPUT = 48;
const CLAIMS = 1000;
const done = {
  state: "succeeded" as const,
  exitCode: 0,
  signal: null,
  errorKind: null,
  error: null,
  stdoutTail: "",
  stderrTail: "",
};

/** Bare Bun: spawn → the first line's own clock, and spawn → exit, for a one-line script. */
const bareSpawn = async (n: number) => {
  const firstLine: number[] = [];
  const exit: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const start = Date.now();
    const t0 = performance.now();
    const proc = Bun.spawn([bun, "-e", "console.log(Date.now())"], { stdout: "pipe" });
    const printed = Number((await new Response(proc.stdout).text()).trim());
    await proc.exited;
    if (i < 3) continue;
    exit.push(performance.now() - t0);
    firstLine.push(printed - start);
  }
  return { spawn_to_first_line: summarize(firstLine), spawn_to_exit: summarize(exit) };
};

interface Target {
  name: "sqlite" | "postgres";
  env: Record<string, string>;
  store: Store;
  close(): Promise<void>;
}

const sqliteTarget = async (): Promise<Target> => {
  const env = { AGENT_COMPUTER_HOME: mkdtempSync(join(tmpdir(), "ac-bench-auto-")) };
  const store = await openStore(env);
  return { name: "sqlite", env, store, close: () => store.close() };
};

const postgresTarget = async (): Promise<Target> => {
  const admin = new SQL(pgUrl as string);
  const db = `ac_bench_auto_${process.pid}`;
  await dropDatabase(admin, db);
  await admin.unsafe(`CREATE DATABASE ${db}`);
  const url = new URL(pgUrl as string);
  url.pathname = `/${db}`;
  const env = {
    AGENT_COMPUTER_HOME: mkdtempSync(join(tmpdir(), "ac-bench-auto-pg-")),
    AGENT_COMPUTER_DATABASE_URL: url.toString(),
  };
  const store = await openStore(env);
  return {
    name: "postgres",
    env,
    store,
    close: async () => {
      await store.close();
      await dropDatabase(admin, db);
      await admin.close();
    },
  };
};

const startWorker = async (t: Target, concurrency: number): Promise<Subprocess> => {
  const worker = Bun.spawn([join(root, "bin", "agent-computer-worker"), "--port", "0", "--concurrency", String(concurrency)], {
    env: { ...t.env, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", AGENT_COMPUTER_FORM: "source" },
    stderr: "pipe",
    stdout: "ignore",
  });
  const reader = (worker.stderr as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes('"worker started"')) {
    const { value, done: ended } = await reader.read();
    if (ended) throw new Error(`worker did not start: ${text}`);
    text += new TextDecoder().decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done) {
      // Keep draining the log so the worker never blocks on a full pipe.
    }
  })();
  return worker;
};

const stopWorker = async (worker: Subprocess) => {
  worker.kill("SIGTERM");
  await worker.exited;
};

const waitAll = async (t: Target, jobId: string, count: number): Promise<void> => {
  for (;;) {
    const rows = await t.store.read((tx) => tx.automation.runsOfJob(jobId, count + 10));
    if (rows.filter((r) => r.state === "succeeded" || r.state === "failed").length >= count) return;
    await Bun.sleep(20);
  }
};

const measureTarget = async (t: Target) => {
  const deps = (): Deps => ({ store: t.store, now: () => Date.now(), host: "bench", newId });
  const registered = await checkIn(deps(), { agentId: "bench", token: undefined, ttlSeconds: 86_400 });
  const owner = { agentId: "bench", token: registered.agent_token as string };
  const jobDir = mkdtempSync(join(tmpdir(), "ac-bench-job-"));
  writeFileSync(join(jobDir, "main.ts"), "console.log(Date.now());\n");
  const job = async () =>
    (await createJob(deps(), { ...owner, dir: jobDir, label: "bench", wakeOnFailure: false, timeoutSeconds: 60 })).id;

  // Trigger to script start: checkbacks due one after another; the script's first line prints its clock.
  const latencyJob = await job();
  const worker = await startWorker(t, 4);
  const first = Date.now() + 1000;
  const dueTimes = new Map<string, number>();
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const cb = await createCheckback(deps(), { ...owner, dueAt: first + i * 150, jobId: latencyJob, baseUrl: "http://x" });
    dueTimes.set(cb.id, first + i * 150);
  }
  await waitAll(t, latencyJob, LATENCY_SAMPLES);
  await stopWorker(worker);
  const runs = await t.store.read((tx) => tx.automation.runsOfJob(latencyJob, LATENCY_SAMPLES));
  const latency = runs.map((r) => Number((r.stdoutTail ?? "").trim()) - (dueTimes.get(r.triggerId ?? "") ?? Number.NaN));

  // Runs per second with N concurrent runs: a burst of manual runs against a running worker.
  const throughput: Record<string, number> = {};
  for (const concurrency of [1, 4, 8]) {
    const burstJob = await job();
    const w = await startWorker(t, concurrency);
    const start = performance.now();
    for (let i = 0; i < RUNS_PER_THROUGHPUT; i++) await startManualRun(deps(), { ...owner, jobId: burstJob, data: null });
    await waitAll(t, burstJob, RUNS_PER_THROUGHPUT);
    throughput[`concurrency_${concurrency}`] = round(RUNS_PER_THROUGHPUT / ((performance.now() - start) / 1000), 1);
    await stopWorker(w);
  }

  // Claim + complete without spawning: the store's share of every run.
  const claimJob = await job();
  for (let i = 0; i < CLAIMS; i++) await startManualRun(deps(), { ...owner, jobId: claimJob, data: null });
  const start = performance.now();
  let completed = 0;
  while (completed < CLAIMS) {
    const claimed = await claimAttempts(deps(), { workerId: "bench", leaseMs: 30_000, limit: 50 });
    for (const c of claimed) await finishAttempt(deps(), c.fence, { ...done, finishedAt: Date.now() });
    completed += claimed.length;
  }
  const claimRate = round(CLAIMS / ((performance.now() - start) / 1000), 0);
  return { trigger_to_script_start: summarize(latency), runs_per_second: throughput, claim_complete_per_second: claimRate };
};

const bare = await bareSpawn(20);
const stores: Record<string, Awaited<ReturnType<typeof measureTarget>>> = {};
for (const open of [sqliteTarget, ...(pgUrl ? [postgresTarget] : [])]) {
  const t = await open();
  try {
    stores[t.name] = await measureTarget(t);
  } finally {
    await t.close();
  }
}
const overFloor = Object.fromEntries(
  Object.entries(stores).map(([name, s]) => [name, round(s.trigger_to_script_start.p50_ms - bare.spawn_to_first_line.p50_ms)]),
);
const file = writeResults("automation", {
  bare_bun_spawn: bare,
  stores,
  trigger_to_start_p50_over_bare_spawn_ms: overFloor,
  target: "trigger-to-start p50 at most 100 ms beyond a bare Bun spawn",
  skipped: pgUrl ? [] : ["postgres (set AGENT_COMPUTER_BENCH_PG_URL or AGENT_COMPUTER_TEST_PG_URL)"],
});

const rows = [
  ["measure", "bare bun", ...Object.keys(stores)],
  [
    "spawn → first line p50 / p95 ms",
    `${bare.spawn_to_first_line.p50_ms} / ${bare.spawn_to_first_line.p95_ms}`,
    ...Object.values(stores).map(() => ""),
  ],
  [
    "checkback due → first line p50 / p95 ms",
    "",
    ...Object.values(stores).map((s) => `${s.trigger_to_script_start.p50_ms} / ${s.trigger_to_script_start.p95_ms}`),
  ],
  ["  p50 beyond bare spawn ms (target ≤ 100)", "", ...Object.values(overFloor).map(String)],
  ...[1, 4, 8].map((n) => [
    `runs/s, concurrency ${n}`,
    "",
    ...Object.values(stores).map((s) => String(s.runs_per_second[`concurrency_${n}`])),
  ]),
  ["claim+complete/s (no spawn)", "", ...Object.values(stores).map((s) => String(s.claim_complete_per_second))],
];
const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  "));
console.log(`written: ${file}`);
const worst = Math.max(...Object.values(overFloor));
if (worst > 100) console.log(`WARNING: trigger-to-start p50 is ${worst} ms beyond a bare spawn (target ≤ 100 ms)`);
