// Broadcast cost as the audience grows (issue 25 item 3): in-process broadcasts to 100, 1,000 and 10,000 live agents
// on SQLite and PostgreSQL, the time per call and per recipient, and the size of the --json document agent-send-cli
// prints for it. Rate limits and the selection bound are left off, so the figures are the delivery's own cost.
//
//   bun bench/broadcast.ts                      measures this checkout and writes bench/results/broadcast.json
//   bun bench/broadcast.ts --print              prints the figures instead (run in a checkout of an older commit)
//   AGENT_COMPUTER_BENCH_BEFORE=<file> bun …    keeps that file's figures beside these as `before`
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { percentile, round, writeResults } from "./lib.ts";
import { depsFor } from "./seed-mesh.ts";

const SIZES = [100, 1_000, 10_000] as const;
/** Timed broadcasts per size after one warm-up: fewer for the big ones, which each write 10,000 rows. */
const RUNS: Record<(typeof SIZES)[number], number> = { 100: 30, 1000: 15, 10000: 7 };
const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;

type RawSql = (text: string) => Promise<unknown>;

/** `n` agents of role `role`, checked in until tomorrow, written in two statements. */
const seed = async (sql: RawSql, role: string, n: number): Promise<void> => {
  const now = Date.now();
  const numbers = `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})`;
  await sql(`${numbers} INSERT INTO agents (name, name_key, token_hash, created_at, updated_at, last_seen_at, holder_since)
    SELECT '${role}-' || i, '${role}-' || i, 'unused', ${now}, ${now}, ${now}, ${now} FROM k`);
  await sql(`${numbers} INSERT INTO sessions (id, agent_name, host, role, caps, ttl_seconds, started_at, last_activity_at,
      expires_at, watermark_seq)
    SELECT 'ses_${role}_' || i, '${role}-' || i, 'bench', '${role}', '[]', 86400, ${now}, ${now}, ${now + 86_400_000}, 0 FROM k`);
};

/** What agent-send-cli --json prints for a result: the summary where this checkout has one, else the result whole. */
const printedBytes = async (result: unknown): Promise<number> => {
  const output = join(import.meta.dir, "../app/agent_computer/src/cli/mesh/send-output.ts");
  const printed = existsSync(output) ? (await import(output)).broadcastOutput(result, undefined) : result;
  return Buffer.byteLength(JSON.stringify(printed, null, 2));
};

const measure = async (store: Store, sql: RawSql) => {
  const herald = await checkIn(depsFor(store), { agentId: "herald", token: undefined, ttlSeconds: 86_400 });
  for (const size of SIZES) await seed(sql, `b${size}`, size);
  const broadcast = (size: number) =>
    sendMessage(depsFor(store), {
      from: "herald",
      token: herald.agent_token,
      recipients: { kind: "broadcast", role: `b${size}` },
      body: "bench broadcast",
    });
  const figures: Record<string, unknown> = {};
  for (const size of SIZES) {
    const first = await broadcast(size);
    if (first.recipients.length !== size) throw new Error(`expected ${size} recipients, got ${first.recipients.length}`);
    const samples: number[] = [];
    for (let i = 0; i < RUNS[size]; i++) {
      const start = performance.now();
      await broadcast(size);
      samples.push(performance.now() - start);
    }
    const p50 = percentile(samples, 50);
    figures[`to_${size}`] = {
      runs: samples.length,
      p50_ms: round(p50),
      min_ms: round(Math.min(...samples)),
      max_ms: round(Math.max(...samples)),
      per_recipient_us: round((p50 * 1000) / size, 1),
      json_bytes: await printedBytes(first),
    };
  }
  return figures;
};

const sqliteFigures = async () => {
  const home = mkdtempSync(join(tmpdir(), "ac-bench-broadcast-"));
  try {
    const store = await openStore({ AGENT_COMPUTER_HOME: home });
    const { Database } = await import("bun:sqlite");
    const db = new Database(join(home, "agent-computer.sqlite"));
    db.run("PRAGMA busy_timeout = 5000");
    try {
      return await measure(store, async (text) => db.run(text));
    } finally {
      db.close();
      await store.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
};

const postgresFigures = async (url: string) => {
  const admin = new SQL(url);
  const name = `ac_bench_broadcast_${process.pid}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const home = mkdtempSync(join(tmpdir(), "ac-bench-broadcast-pg-"));
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  const raw = new SQL(dbUrl.toString());
  try {
    const store = await openStore({ AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: dbUrl.toString() });
    try {
      return await measure(store, (text) => raw.unsafe(text));
    } finally {
      await store.close();
    }
  } finally {
    await raw.close();
    await dropDatabase(admin, name);
    await admin.close();
    rmSync(home, { recursive: true, force: true });
  }
};

const figures = {
  sqlite: await sqliteFigures(),
  postgres: pgUrl ? await postgresFigures(pgUrl) : "skipped: set AGENT_COMPUTER_BENCH_PG_URL",
  load_average_at_end: loadavg().map((l) => round(l)),
};

if (process.argv.includes("--print")) console.log(JSON.stringify(figures));
else {
  const beforeFile = process.env.AGENT_COMPUTER_BENCH_BEFORE;
  const before = beforeFile ? JSON.parse(readFileSync(beforeFile, "utf8")) : undefined;
  const file = writeResults("broadcast", {
    method:
      "bench/broadcast.ts: in-process sendMessage broadcasts (authentication, presence, selection, reach rule, delivery, " +
      "rate limits off) to 100 / 1,000 / 10,000 seeded live agents, one warm-up then timed runs per size, on a SQLite " +
      "file and a fresh PostgreSQL 15 database on this machine (2 cores shared with other work: see load_average_at_end). " +
      "json_bytes: the agent-send-cli --json document for the result (before: every recipient; after: the summary). " +
      "`before` ran the same file in a checkout of the commit before the set-based delivery.",
    ...(before ? { before } : {}),
    after: figures,
  });
  console.log(`wrote ${file}`);
}
