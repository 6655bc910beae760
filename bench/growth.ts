// Growth to a team of thousands (issue 25, item 4). On stores of 100, 1,000 and 10,000 agents (SQLite file and
// PostgreSQL), each filled by bulk SQL (growth-seed.ts): a check-in, a directory page, a filtered directory page, a
// broadcast to every agent, an inbox read and a send, each in this process as the CLI makes it (growth-calls.ts),
// and the directory page and a send as whole compiled processes against two floors. Then 100 hosts' workers on one
// PostgreSQL (growth-fleet.ts). Writes bench/results/growth.json and prints a summary.
//
//   node_modules/.bin/bun bench/growth.ts [--sqlite-only|--postgres-only] [--quick] [--no-fleet|--fleet-only]
//     [--filter "<agents-list-cli flags>"] [--env NAME=VALUE]… | --report-only
// --report-only: measures nothing; judges the last results again and prints their summary.
// --filter: the filtered page's flags; by default --role reviewer where agents-list-cli has --role, else
// --include-stale. --env: set for every call (e.g. a broadcast's recipient maximum, to measure 10,000 recipients).
// A partial run (--sqlite-only, --postgres-only, --no-fleet, --fleet-only) keeps the last run's other figures.
// PostgreSQL: AGENT_COMPUTER_BENCH_PG_URL or AGENT_COMPUTER_TEST_PG_URL (a role that may CREATE DATABASE), else
// the development server of scripts/test-all.sh; the 100 hosts run on a PostgreSQL of the bench's own (root only).
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { binaries } from "../app/agent_computer/src/cli/binaries.ts";
import { commandFlags } from "../app/agent_computer/src/cli/kernel/flags.ts";
import { shellWords } from "../test/helpers/shell-words.ts";
import { timeCallsAsProcesses, timeCallsInProcess } from "./growth-calls.ts";
import { measureFleet } from "./growth-fleet.ts";
import { explainDirectory, judge, summaryLines } from "./growth-report.ts";
import { HOSTS, MAIL_PER_AGENT, RARE_ROLE, type SeededStore, seedStore } from "./growth-seed.ts";
import { resultsDir, round, writeResults } from "./lib.ts";

const args = process.argv.slice(2);
const has = (flag: string) => args.includes(flag);
const valuesOf = (flag: string): string[] =>
  args.flatMap((a, i) => (a === flag && args[i + 1] !== undefined ? [args[i + 1] as string] : []));
const quick = has("--quick");
const extraEnv = Object.fromEntries(valuesOf("--env").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
// The same default as scripts/test-all.sh: the development server on this machine.
const pgUrl =
  process.env.AGENT_COMPUTER_BENCH_PG_URL ??
  process.env.AGENT_COMPUTER_TEST_PG_URL ??
  "postgres://agent_computer:agent_computer@127.0.0.1:5432/agent_computer_test";
const dialects = (["sqlite", "postgres"] as const).filter(
  (d) =>
    !has("--fleet-only") &&
    !has("--report-only") &&
    !(d === "sqlite" && has("--postgres-only")) &&
    !(d === "postgres" && has("--sqlite-only")),
);
const runFleet = !has("--no-fleet") && !has("--sqlite-only") && !has("--report-only");
if (!existsSync(join(import.meta.dir, "..", "dist", "agent-computer"))) {
  throw new Error("dist/agent-computer is missing: run `node_modules/.bin/bun scripts/build.ts` first");
}

const listFlags = commandFlags(((await binaries["agents-list-cli"]?.()) ?? { command: undefined }).command as never).map(
  (f) => f.name,
);
const [given] = valuesOf("--filter");
const filter =
  given !== undefined ? shellWords(given) : listFlags.includes("--role") ? ["--role", RARE_ROLE] : ["--include-stale"];
const scales = [100, 1_000, 10_000];
const budget = quick
  ? { maxRuns: 20, maxMs: 400, minRounds: 2, processRuns: 3, processWarmup: 1, processMaxMs: 20_000 }
  : { maxRuns: 200, maxMs: 3_000, minRounds: 3, processRuns: 15, processWarmup: 2, processMaxMs: 90_000 };
const fleetBudget = quick
  ? { hosts: 100, windowMs: 6_000, settleMs: 2_000, wakeSamples: 5 }
  : { hosts: 100, windowMs: 30_000, settleMs: 5_000, wakeSamples: 20 };

type StoreFigures = Record<string, unknown>;
const stores: Record<string, StoreFigures> = {};
for (const dialect of dialects) {
  // Every scale's store at once, so each call takes turns across the scales (growth-calls.ts).
  const seeded: SeededStore[] = [];
  const seedSeconds: Record<string, number> = {};
  try {
    for (const agents of scales) {
      const seedStart = performance.now();
      seeded.push(await seedStore(dialect, agents, pgUrl, extraEnv));
      seedSeconds[agents] = round((performance.now() - seedStart) / 1000, 1);
    }
    // Whole processes first: the in-process broadcasts add a delivery per agent to every store.
    const loadBefore = round(loadavg()[0] ?? 0);
    const processes = timeCallsAsProcesses(seeded, budget);
    const loadBetween = round(loadavg()[0] ?? 0);
    const inProcess = await timeCallsInProcess(seeded, filter, budget);
    const byScale: Record<string, unknown> = {};
    for (const [i, store] of seeded.entries()) {
      byScale[store.agents] = { in_process: inProcess[i], directory_query: await explainDirectory(store) };
    }
    stores[dialect] = {
      measured_at: new Date().toISOString(),
      load_average_1m: { before: loadBefore, after_processes: loadBetween, after_in_process: round(loadavg()[0] ?? 0) },
      seed_seconds: seedSeconds,
      scales: byScale,
      whole_process: processes,
    };
    console.log(`${dialect}: done (load ${round(loadavg()[0] ?? 0)})`);
  } finally {
    for (const store of seeded) await store.drop();
  }
}

const fleet = runFleet ? { measured_at: new Date().toISOString(), ...(await measureFleet(fleetBudget, extraEnv)) } : undefined;

const file = join(resultsDir, "growth.json");
const last = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
const merged = {
  stores: { ...((last.stores as object) ?? {}), ...stores } as Record<string, Record<string, Record<string, unknown>>>,
  hosts_on_one_postgres: fleet ?? last.hosts_on_one_postgres,
};
const results = {
  machine:
    "shared 2-core machine (other engineers' test suites ran at the same time): read every figure beside its load average; re-run on a quiet machine for absolute numbers",
  // A partial run's settings are this run's; --report-only keeps the measured run's, and its date.
  ...(has("--report-only") ? { measured_at: last.measured_at } : {}),
  mode: has("--report-only") ? last.mode : quick ? "quick" : "full",
  filtered_page_flags: has("--report-only") ? last.filtered_page_flags : filter.join(" "),
  extra_env: has("--report-only") ? last.extra_env : extraEnv,
  seeding: `bulk SQL copies of a checked-in template: N agents with live sessions on ${HOSTS} hosts, one in ten of role ${RARE_ROLE}, ${MAIL_PER_AGENT} acknowledged messages each; the reader has 50 pending`,
  calls:
    "in_process: the binary's argv front end, composition root, command and renderer in this process (no start-up), one call after another; ops_per_s = 1000 / mean ms; text_bytes and json_bytes are what the CLI prints. whole_process: the compiled binary through bin/, spawned in alternation with `true` and `--version`",
  ...merged,
  goals: judge(merged.stores, merged.hosts_on_one_postgres),
};
writeResults("growth", results);
for (const line of summaryLines(results)) console.log(line);
console.log(`written to ${file}`);
