// Search bench (issue 16 item 3): agent-search-cli's query, in process, as the store grows. The reader has 200
// messages of its own (sent and received) and the store holds N more between background agents; each background
// body carries one of 1 000 topic words, so a topic word's matches across the store grow with N (about N/1000),
// while a word only the reader's mail holds matches the same 100 messages at every size. Both are timed: the
// first shows the cost of the store's size, the second the cost of the caller's own mail.
// Writes bench/results/search.json. BENCH_SEARCH_SIZES=1000,10000 (default 1000,10000,100000,1000000 on SQLite,
// up to 100000 on PostgreSQL, whose bulk seeding takes minutes beyond that).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { searchMessages } from "../app/agent_computer/src/domain/mesh/search.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { percentile, round, writeResults } from "./lib.ts";
import { depsFor, withAgents } from "./seed-mesh.ts";

const QUERIES = 60;
const sizesFor = (store: string): number[] =>
  process.env.BENCH_SEARCH_SIZES
    ? process.env.BENCH_SEARCH_SIZES.split(",").map(Number)
    : store === "sqlite"
      ? [1_000, 10_000, 100_000, 1_000_000]
      : [1_000, 10_000, 100_000];

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

const timeQuery = async (store: Store, token: string, query: string) => {
  const samples: number[] = [];
  let count = 0;
  for (let i = 0; i < QUERIES; i++) {
    const start = performance.now();
    count = (await searchMessages(depsFor(store), { agentId: "reader", token, query, limit: 20 })).count;
    samples.push(performance.now() - start);
  }
  return { p50_ms: round(percentile(samples, 50)), p95_ms: round(percentile(samples, 95)), matches_returned: count };
};

const results: Record<string, unknown> = {};
const loadBefore = loadavg()[0];
for (const storeName of ["sqlite", ...(process.env.AGENT_COMPUTER_TEST_PG_URL ? ["postgres"] : [])]) {
  const scratch = mkdtempSync(join(tmpdir(), "ac-bench-search-"));
  // PostgreSQL: a database of the bench's own on the server of AGENT_COMPUTER_TEST_PG_URL, dropped at the end.
  const pgUrl = process.env.AGENT_COMPUTER_TEST_PG_URL as string;
  const benchDb = `agent_computer_bench_search_${process.pid}`;
  const admin = storeName === "postgres" ? new (await import("bun")).SQL(pgUrl) : undefined;
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
    for (const size of sizesFor(storeName)) {
      await seedBackground(store, seeded, size);
      seeded = size;
      const own = await timeQuery(store, tokens.reader as string, "zephyr deploys");
      const topic = await timeQuery(store, tokens.reader as string, "topic7");
      const row = { background_messages: size, own_word: own, word_across_store: topic };
      console.log(`[${storeName}] ${size} messages: own word p50 ${own.p50_ms} ms, store-wide word p50 ${topic.p50_ms} ms`);
      rows.push(row);
    }
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
  note: "in process, domain searchMessages (authentication, presence write, query); p50/p95 over the queries",
  results,
});
console.log(`wrote ${file}`);
