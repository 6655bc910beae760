// PostgreSQL under contention (issue 13, item 0): 50 senders at once, every one sending to the same 5 recipients,
// so every send competes for a recipient's sequence number and for the host's rate-limit counter.
//   1. whole processes: 50 compiled agent-send-cli processes at a time, each sender running SENDS_EACH sends one
//      after another (the way agents on one host call the CLI); the time of each process, spawn to exit;
//   1b. the same processes, each sender to a recipient of its own (no shared row but the host's rate counter): the
//      floor this machine sets for 50 processes at once, to tell lock waits from CPU starvation;
//   2. in process: 50 senders, each with a store (a connection pool) of its own as a process would have, the
//      domain's sendMessage with the CLI's rate limits switched on (raised so they never refuse), timed per send.
// Then both runs are checked: every send delivered exactly once, each recipient's sequence numbers 1..n with no
// gap and no repeat. Target: p99 of a single send under 2 s in both runs. Writes bench/results/pg-contention.json.
// Needs AGENT_COMPUTER_BENCH_PG_URL or AGENT_COMPUTER_TEST_PG_URL, and `npm run build` (dist/agent-computer).

import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import { rateLimitsFromEnv } from "../app/agent_computer/src/domain/identity/rate-config.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { percentile, round, writeResults } from "./lib.ts";
import { depsFor } from "./seed-mesh.ts";

const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;
if (!pgUrl) {
  console.log("pg-contention: skipped (set AGENT_COMPUTER_BENCH_PG_URL or AGENT_COMPUTER_TEST_PG_URL to a PostgreSQL server)");
  process.exit(0);
}
const root = join(import.meta.dir, "..");
const launcher = join(root, "bin/agent-send-cli");
try {
  statSync(join(root, "dist/agent-computer"));
} catch {
  throw new Error("dist/agent-computer is missing: run `npm run build` first (npm run bench does)");
}

const SENDERS = 50;
const RECIPIENTS = 5;
const SENDS_EACH = Number(process.env.BENCH_SENDS_EACH ?? 4);
const IN_PROCESS_SENDS_EACH = 40;
// The CLI's limits, on, but high enough never to refuse: the counters' row locks are part of what is measured.
const RAISED_LIMITS = {
  AGENT_COMPUTER_RATE_SEND_PER_NAME: "1000000/60",
  AGENT_COMPUTER_RATE_SEND_PER_HOST: "1000000/60",
};

const senderName = (i: number) => `sender-${i}`;
const recipientOf = (sender: number, k: number) => `recipient-${(sender + k) % RECIPIENTS}`;
const soloRecipient = (sender: number) => `solo-${sender}`;

const latencySummary = (samples: readonly number[], wallMs: number) => ({
  sends: samples.length,
  sends_per_s: round(samples.length / (wallMs / 1000), 1),
  p50_ms: round(percentile(samples, 50), 1),
  p95_ms: round(percentile(samples, 95), 1),
  p99_ms: round(percentile(samples, 99), 1),
  max_ms: round(Math.max(...samples), 1),
});

/** A fresh database with the recipients and senders checked in; their tokens in files, for --token-file. */
const freshMesh = async (admin: SQL, label: string) => {
  const name = `ac_bench_contention_${label}_${process.pid}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const home = mkdtempSync(join(tmpdir(), "ac-bench-contention-"));
  const env = { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: url.toString() };
  const store = await openStore(env);
  const tokens: Record<string, string> = {};
  const names = [
    ...Array.from({ length: RECIPIENTS }, (_, i) => `recipient-${i}`),
    ...Array.from({ length: SENDERS }, (_, i) => senderName(i)),
    ...Array.from({ length: SENDERS }, (_, i) => soloRecipient(i)),
  ];
  for (const agentId of names) {
    const r = await checkIn(depsFor(store), { agentId, token: undefined, ttlSeconds: 86_400 });
    tokens[agentId] = r.agent_token as string;
    writeFileSync(join(home, `${agentId}.token`), tokens[agentId] as string, { mode: 0o600 });
  }
  return { name, env, home, store, tokens };
};

/** Every send delivered once; each recipient's sequence numbers are exactly 1..n. */
const verify = async (store: Store, expected: number, recipients: string[]) => {
  const rows = await store.read(async (tx) => {
    const seqs: Record<string, number[]> = {};
    for (const agent of recipients) {
      const sent = await tx.mesh.liveSessions(Date.now());
      const session = sent.find((s) => s.agentId === agent);
      const pending = session ? await tx.mesh.pending(session.id, 100_000) : [];
      seqs[agent] = pending.map((p) => p.seq);
    }
    return seqs;
  });
  const all = Object.values(rows).flat();
  const gapFree = Object.values(rows).every((seqs) => seqs.every((seq, i) => seq === i + 1));
  return { delivered: all.length, expected, exactly_once: all.length === expected, seqs_gap_free_in_order: gapFree };
};

const runProcesses = async (
  env: Record<string, string>,
  home: string,
  to: (sender: number, k: number) => string = recipientOf,
) => {
  const samples: number[] = [];
  const failures: string[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, i) => {
      for (let k = 0; k < SENDS_EACH; k++) {
        const began = performance.now();
        const child = Bun.spawn(
          [
            launcher,
            "--from",
            senderName(i),
            "--token-file",
            join(home, `${senderName(i)}.token`),
            "--to",
            to(i, k),
            "--body",
            `process send ${k} of ${senderName(i)}`,
            "--json",
          ],
          { env: { PATH: process.env.PATH, ...env, ...RAISED_LIMITS }, stdout: "ignore", stderr: "pipe" },
        );
        const [exitCode, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
        samples.push(performance.now() - began);
        if (exitCode !== 0) failures.push(`exit ${exitCode}: ${stderr.trim().split("\n")[0]}`);
      }
    }),
  );
  return { wallMs: performance.now() - start, samples, failures };
};

const runInProcess = async (env: Record<string, string>, tokens: Record<string, string>) => {
  const stores = await Promise.all(Array.from({ length: SENDERS }, () => openStore(env)));
  const limits = rateLimitsFromEnv(RAISED_LIMITS);
  const samples: number[] = [];
  const failures: string[] = [];
  const start = performance.now();
  await Promise.all(
    stores.map(async (store, i) => {
      const deps = { ...depsFor(store), limits };
      for (let k = 0; k < IN_PROCESS_SENDS_EACH; k++) {
        const began = performance.now();
        try {
          await sendMessage(deps, {
            from: senderName(i),
            token: tokens[senderName(i)],
            recipients: { kind: "to", agentIds: [recipientOf(i, k)] },
            body: `in-process send ${k} of ${senderName(i)}`,
          });
        } catch (error) {
          failures.push(String(error));
        }
        samples.push(performance.now() - began);
      }
    }),
  );
  const wallMs = performance.now() - start;
  await Promise.all(stores.map((s) => s.close()));
  return { wallMs, samples, failures };
};

const admin = new SQL(pgUrl);
const results: Record<string, unknown> = { load_average_at_start: loadavg().map((l) => round(l, 2)) };
const only = process.env.BENCH_ONLY;
const shared = Array.from({ length: RECIPIENTS }, (_, i) => `recipient-${i}`);
const solos = Array.from({ length: SENDERS }, (_, i) => soloRecipient(i));
type Mesh = Awaited<ReturnType<typeof freshMesh>>;
for (const [label, recipients, sendsEach, run] of [
  ["whole_processes", shared, SENDS_EACH, (m: Mesh) => runProcesses(m.env, m.home)],
  ["whole_processes_own_recipient_floor", solos, SENDS_EACH, (m: Mesh) => runProcesses(m.env, m.home, soloRecipient)],
  ["in_process", shared, IN_PROCESS_SENDS_EACH, (m: Mesh) => runInProcess(m.env, m.tokens)],
] as const) {
  if (only && only !== label) continue;
  const mesh = await freshMesh(admin, label);
  try {
    const { wallMs, samples, failures } = await run(mesh);
    results[label] = {
      ...latencySummary(samples, wallMs),
      failures: failures.length,
      first_failures: failures.slice(0, 3),
      ...(await verify(mesh.store, SENDERS * sendsEach - failures.length, [...recipients])),
    };
  } finally {
    await mesh.store.close();
    await dropDatabase(admin, mesh.name);
    rmSync(mesh.home, { recursive: true, force: true });
  }
}
await admin.close();
results.load_average_at_end = loadavg().map((l) => round(l, 2));
results.setup = {
  senders: SENDERS,
  recipients: RECIPIENTS,
  process_sends_each: SENDS_EACH,
  in_process_sends_each: IN_PROCESS_SENDS_EACH,
};
results.targets = { p99_ms_max: 2000 };
const file = writeResults("pg-contention", results);
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${file}`);
