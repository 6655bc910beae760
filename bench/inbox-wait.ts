// agent-inbox-cli --wait (issue 26, item 3): how long after a send commits the blocked reader's process returns
// with the message, on SQLite (directory change events on the database and its WAL) and on PostgreSQL (LISTEN on
// the wake channel). Each round starts a real `agent-inbox-cli --wait 30` (through its bin/ launcher), lets it
// settle into its wait, sends one message from this process and times from the send's commit to the reader's
// exit as this process sees it (so the figure includes the reader's final read, its output and its exit); the
// message is then acknowledged. Goal: p50 within 100 ms.
// Beside it, the CPU a wait costs, as the child's user + system time: readers that wait SHORT_IDLE_S and LONG_IDLE_S
// with nothing arriving (they exit 7), and a plain read of the same inbox. The difference between the two waits,
// over the difference of their lengths, is what waiting costs per second once the process and its connections
// are up; the short wait minus the plain read is that set-up (on PostgreSQL: the LISTEN connection).
// Writes bench/results/inbox-wait.json.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { ackMessages } from "../app/agent_computer/src/domain/mesh/ack.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { round, spread, writeResults } from "./lib.ts";
import { depsFor, withAgents } from "./seed-mesh.ts";

const root = join(import.meta.dir, "..");
const runs = Number(process.env.BENCH_RUNS ?? 20);
const SETTLE_MS = 1000;
const SHORT_IDLE_S = 2;
const LONG_IDLE_S = 20;
const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;
const scratch = mkdtempSync(join(tmpdir(), "ac-bench-inbox-wait-"));
const admin = pgUrl ? new SQL(pgUrl) : undefined;
const databases: string[] = [];

const freshPostgres = async (): Promise<string> => {
  const name = `ac_bench_wait_${process.pid}`;
  await admin?.unsafe(`CREATE DATABASE ${name}`);
  databases.push(name);
  const url = new URL(pgUrl as string);
  url.pathname = `/${name}`;
  return url.toString();
};

const reader = (env: Record<string, string>, tokenDir: string, extra: string[]) =>
  Bun.spawn(
    [join(root, "bin/agent-inbox-cli"), "--agent-id", "reader", "--token-file", join(tokenDir, "reader.token"), ...extra],
    {
      env: { PATH: process.env.PATH, ...env },
      stdout: "pipe",
      stderr: "pipe",
    },
  );

const cpuMs = (proc: { resourceUsage(): { cpuTime: { total: bigint | number } } | undefined }): number =>
  Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1000;

const measure = async (label: string, env: Record<string, string>) => {
  const tokenDir = join(scratch, `${label}-tokens`);
  mkdirSync(tokenDir, { recursive: true });
  const store = await openStore(env);
  try {
    const tokens = await withAgents(store, tokenDir);
    const deps = depsFor(store);
    const latencies: number[] = [];
    for (let i = 0; i < runs; i++) {
      const proc = reader(env, tokenDir, ["--wait", "30", "--json"]);
      await Bun.sleep(SETTLE_MS);
      await sendMessage(deps, {
        from: "writer",
        token: tokens.writer,
        recipients: { kind: "to", agentIds: ["reader"] },
        body: `bench ${i}`,
      });
      const committed = performance.now();
      const code = await proc.exited;
      const returned = performance.now();
      if (code !== 0) throw new Error(`${label}: the waiting reader exited ${code}: ${await new Response(proc.stderr).text()}`);
      latencies.push(returned - committed);
      const seq = Number(JSON.parse(await new Response(proc.stdout).text()).messages.at(-1)?.seq);
      await ackMessages(deps, { agentId: "reader", token: tokens.reader, upToSeq: seq });
    }
    const idleCpu = async (seconds: number) => {
      const idle = reader(env, tokenDir, ["--wait", String(seconds)]);
      if ((await idle.exited) !== 7) throw new Error(`${label}: the idle wait did not end with TIMEOUT`);
      return cpuMs(idle);
    };
    const shortCpu = await idleCpu(SHORT_IDLE_S);
    const longCpu = await idleCpu(LONG_IDLE_S);
    const plain = reader(env, tokenDir, []);
    if ((await plain.exited) !== 0) throw new Error(`${label}: the plain read failed`);
    const plainCpu = cpuMs(plain);
    return {
      send_commit_to_reader_exit: spread(latencies),
      within_100ms: latencies.filter((ms) => ms <= 100).length,
      idle_wait_cpu: {
        plain_read_ms: round(plainCpu),
        [`wait_${SHORT_IDLE_S}s_ms`]: round(shortCpu),
        [`wait_${LONG_IDLE_S}s_ms`]: round(longCpu),
        per_waiting_second_ms: round((longCpu - shortCpu) / (LONG_IDLE_S - SHORT_IDLE_S)),
        wait_setup_ms: round(shortCpu - plainCpu),
      },
    };
  } finally {
    await store.close();
  }
};

try {
  const results: Record<string, unknown> = {};
  results.sqlite = await measure("sqlite", { AGENT_COMPUTER_HOME: join(scratch, "sqlite") });
  console.log("sqlite", JSON.stringify(results.sqlite));
  if (pgUrl) {
    const url = await freshPostgres();
    results.postgres = await measure("postgres", { AGENT_COMPUTER_HOME: join(scratch, "pg"), AGENT_COMPUTER_DATABASE_URL: url });
    console.log("postgres", JSON.stringify(results.postgres));
  } else {
    console.log("SKIPPED: PostgreSQL (set AGENT_COMPUTER_BENCH_PG_URL or AGENT_COMPUTER_TEST_PG_URL)");
  }
  const file = writeResults("inbox-wait", {
    runs,
    settle_ms: SETTLE_MS,
    form: process.env.AGENT_COMPUTER_FORM ?? "compiled",
    load_average_1m: round(loadavg()[0] ?? 0),
    ...results,
  });
  console.log(`wrote ${file}`);
} finally {
  for (const name of databases) if (admin) await dropDatabase(admin, name);
  await admin?.close();
  rmSync(scratch, { recursive: true, force: true });
}
