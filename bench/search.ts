// Search bench (issue 16 item 3): agent-search-cli's query, in process, as the store grows. The reader has 200
// messages of its own (sent and received) and the store holds N more between background agents; each background
// body carries one of 1 000 topic words, so a topic word's matches across the store grow with N (about N/1000),
// while a word only the reader's mail holds matches the same 100 messages at every size. Both are timed: the
// first shows the cost of the store's size, the second the cost of the caller's own mail. A third word ("and") is in
// every message of the store and 200 of the caller's. Each point is timed in ROUNDS rounds of QUERIES queries, the
// cases interleaved, and reported as the median of the rounds' p50 with the lowest and highest beside it.
// Writes bench/results/search.json. BENCH_SEARCH_SIZES=1000,10000 (default 1000 to 1000000 on both stores).
// PostgreSQL's background rows are written by one INSERT … SELECT generate_series per step (then ANALYZE, as
// autovacuum would), SQLite's through the store.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { searchMessages } from "../app/agent_computer/src/domain/mesh/search.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { percentile, round, writeResults } from "./lib.ts";
import { depsFor, withAgents } from "./seed-mesh.ts";

const QUERIES = 40;
const ROUNDS = 5;
const SIZES = process.env.BENCH_SEARCH_SIZES?.split(",").map(Number) ?? [1_000, 10_000, 100_000, 1_000_000];
const CASES = { own_word: "zephyr deploys", word_across_store: "topic7", word_everywhere: "and" } as const;

const seedBackgroundSql = async (db: InstanceType<typeof SQL>, from: number, to: number): Promise<void> => {
  const step = 100_000;
  for (let done = from; done < to; done += step) {
    const last = Math.min(done + step, to) - 1;
    await db.unsafe(
      `INSERT INTO messages (id, sender, kind, body, created_at)
       SELECT 'msg_' || lpad(to_hex(k), 32, '0'), 'bg-' || ((k + 1) % 100), 'message',
         'background note ' || k || ' about topic' || (k % 1000) || ' and the build', $3
       FROM generate_series($1::bigint, $2::bigint) k`,
      [done, last, Date.now() - 1000],
    );
    await db.unsafe(
      `INSERT INTO deliveries (message_id, recipient, seq, state)
       SELECT 'msg_' || lpad(to_hex(k), 32, '0'), 'bg-' || (k % 100), k + 1, 'acked' FROM generate_series($1::bigint, $2::bigint) k`,
      [done, last],
    );
  }
  await db.unsafe("ANALYZE messages");
  await db.unsafe("ANALYZE deliveries");
};

const seedBackground = async (store: Store, from: number, to: number): Promise<void> => {
  const batch = 5000;
  for (let done = from; done < to; done += batch) {
    const n = Math.min(batch, to - done);
    await store.write(async (tx) => {
      for (let i = 0; i < n; i++) {
        const k = done + i;
        const id = `msg_${k.toString(16).padStart(32, "0")}`;
        await tx.mesh.insertMessage({
          id,
          sender: `bg-${(k + 1) % 100}`,
          kind: "message",
          body: `background note ${k} about topic${k % 1000} and the build`,
          threadId: null,
          idempotencyKey: null,
          createdAt: Date.now() - 1000,
        });
        await tx.mesh.insertDelivery({ messageId: id, recipient: `bg-${k % 100}`, seq: k + 1, state: "acked", sessionId: null });
      }
    });
  }
};

const timeRound = async (store: Store, token: string, query: string) => {
  const samples: number[] = [];
  let count = 0;
  for (let i = 0; i < QUERIES; i++) {
    const start = performance.now();
    count = (await searchMessages(depsFor(store), { agentId: "reader", token, query, limit: 20 })).count;
    samples.push(performance.now() - start);
  }
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), count };
};

const timeCases = async (store: Store, token: string) => {
  const rounds: Record<string, { p50: number; p95: number; count: number }[]> = Object.fromEntries(
    Object.keys(CASES).map((name) => [name, []]),
  );
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, query] of Object.entries(CASES)) rounds[name]?.push(await timeRound(store, token, query));
  }
  return Object.fromEntries(
    Object.entries(rounds).map(([name, rs]) => {
      const p50s = rs.map((x) => x.p50);
      return [
        name,
        {
          p50_ms: round(percentile(p50s, 50)),
          p50_min_ms: round(Math.min(...p50s)),
          p50_max_ms: round(Math.max(...p50s)),
          p95_ms: round(
            percentile(
              rs.map((x) => x.p95),
              50,
            ),
          ),
          matches_returned: rs[0]?.count,
        },
      ];
    }),
  );
};

const results: Record<string, unknown> = {};
const loadBefore = loadavg()[0];
for (const storeName of ["sqlite", ...(process.env.AGENT_COMPUTER_TEST_PG_URL ? ["postgres"] : [])]) {
  const scratch = mkdtempSync(join(tmpdir(), "ac-bench-search-"));
  // PostgreSQL: a database of the bench's own on the server of AGENT_COMPUTER_TEST_PG_URL, dropped at the end.
  const pgUrl = process.env.AGENT_COMPUTER_TEST_PG_URL as string;
  const benchDb = `agent_computer_bench_search_${process.pid}`;
  const admin = storeName === "postgres" ? new SQL(pgUrl) : undefined;
  await admin?.unsafe(`CREATE DATABASE ${benchDb}`);
  const benchUrl = Object.assign(new URL(pgUrl), { pathname: `/${benchDb}` }).toString();
  const env =
    storeName === "sqlite"
      ? { AGENT_COMPUTER_HOME: join(scratch, "home") }
      : { AGENT_COMPUTER_HOME: join(scratch, "home"), AGENT_COMPUTER_DATABASE_URL: benchUrl };
  const store = await openStore(env);
  try {
    const tokens = await withAgents(store, scratch);
    for (let i = 0; i < 200; i++) {
      const [from, to] = i % 2 === 0 ? ["writer", "reader"] : ["reader", "writer"];
      await sendMessage(depsFor(store), {
        from,
        token: tokens[from],
        recipients: { kind: "to", agentIds: [to] },
        body: `reader thread ${i} about topic${i % 1000} and ${i % 2 === 0 ? "zephyr" : "quokka"} deploys`,
      });
    }
    const rows: Record<string, unknown>[] = [];
    let seeded = 0;
    const bulk = storeName === "postgres" ? new SQL(benchUrl) : undefined;
    for (const size of SIZES) {
      const seedStart = performance.now();
      await (bulk ? seedBackgroundSql(bulk, seeded, size) : seedBackground(store, seeded, size));
      const seedSeconds = round((performance.now() - seedStart) / 1000, 1);
      seeded = size;
      const row = {
        background_messages: size,
        load_average_1m: loadavg()[0],
        ...(await timeCases(store, tokens.reader as string)),
      };
      console.log(`[${storeName}] ${size} messages (seeded in ${seedSeconds} s): ${JSON.stringify(row)}`);
      rows.push(row);
    }
    await bulk?.close();
    results[storeName] = rows;
  } finally {
    await store.close();
    rmSync(scratch, { recursive: true, force: true });
    await admin?.unsafe(`DROP DATABASE IF EXISTS ${benchDb} WITH (FORCE)`);
    await admin?.close();
  }
}
const file = writeResults("search", {
  load_average_1m: { before: loadBefore, after: loadavg()[0] },
  queries_per_point: QUERIES,
  rounds_per_point: ROUNDS,
  note: "in process, domain searchMessages (authentication, presence write, query), limit 20; p50_ms is the median of the rounds' p50 (min/max beside it), p95_ms the median of the rounds' p95",
  results,
});
console.log(`wrote ${file}`);
