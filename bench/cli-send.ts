// CLI send on PostgreSQL against the same CLI send on SQLite (issue 13, item 4): whole processes of the compiled
// agent-send-cli (through its bin/ launcher), timed in alternation (lib.ts timeAlternating), on SQLite, on
// PostgreSQL directly (TCP, scram-sha-256, the session limits as start-up parameters) and through PgBouncer in
// transaction pooling mode (?pool_mode=transaction; test/helpers/pgbouncer.ts starts one of our own), once with
// scram-sha-256 between client and pooler and once with trust (a pooler on loopback that spares each short-lived
// client the scram exchange). Target: the PostgreSQL send's p50 at most 1.5x the SQLite one's.
//
// Beside them, what opening a connection costs, measured in this process (a fresh Bun.SQL, one SELECT 1, closed),
// in alternation too: directly with and without our start-up parameters, and through both PgBouncers; and one SELECT 1
// on a connection already open, the round trip every statement pays. Every CLI call opens a fresh connection. And the
// direct PostgreSQL send once more with the JIT on, which the launcher turns off for one-shot commands. And what
// no statement count removes: the first Bun.SQL of a fresh process, and a fresh server process's first transaction.
// Writes bench/results/cli-send.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { SESSION_SETTINGS } from "../app/agent_computer/src/store/postgres/session-settings.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { startPgBouncer } from "../test/helpers/pgbouncer.ts";
import { type ProcessSpec, percentile, round, spread, timeAlternating, writeResults } from "./lib.ts";
import { depsFor, withAgents } from "./seed-mesh.ts";

const root = join(import.meta.dir, "..");
const runs = Number(process.env.BENCH_RUNS ?? 40);
const pgUrl = process.env.AGENT_COMPUTER_BENCH_PG_URL ?? process.env.AGENT_COMPUTER_TEST_PG_URL;
if (!pgUrl) throw new Error("set AGENT_COMPUTER_BENCH_PG_URL (or AGENT_COMPUTER_TEST_PG_URL) to a PostgreSQL database");
try {
  statSync(join(root, "dist/agent-computer"));
} catch {
  throw new Error("dist/agent-computer is missing: run `npm run build` first (npm run bench does)");
}

const scratch = mkdtempSync(join(tmpdir(), "ac-bench-cli-send-"));
const admin = new SQL(pgUrl);
const databases: string[] = [];
const freshDatabase = async (): Promise<string> => {
  const name = `ac_bench_cli_${process.pid}_${databases.length}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  databases.push(name);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

const directUrl = await freshDatabase();
const pooledDatabase = await freshDatabase();
const bouncer = await startPgBouncer(pooledDatabase);
const pooledUrl = new URL(bouncer.url);
pooledUrl.searchParams.set("pool_mode", "transaction");
const trustDatabase = await freshDatabase();
const trustBouncer = await startPgBouncer(trustDatabase, { authType: "trust" });
const trustUrl = new URL(trustBouncer.url);
trustUrl.searchParams.set("pool_mode", "transaction");

try {
  // A store of its own for each (each takes a third of the sends, well inside the default rate limits), with
  // writer and reader checked in and their tokens in a directory of its own.
  const envs: Record<string, Record<string, string>> = {};
  for (const [label, url] of [
    ["sqlite", undefined],
    ["postgres_direct", directUrl],
    ["postgres_pgbouncer_transaction", pooledUrl.toString()],
    ["postgres_pgbouncer_transaction_trust", trustUrl.toString()],
  ] as const) {
    const dir = join(scratch, `${label}-tokens`);
    const env: Record<string, string> = {
      AGENT_COMPUTER_HOME: join(scratch, label),
      ...(url ? { AGENT_COMPUTER_DATABASE_URL: url } : {}),
    };
    const store = await openStore(env);
    mkdirSync(dir, { recursive: true });
    await withAgents(store, dir);
    await store.close();
    envs[label] = { ...env, TOKEN_DIR: dir };
  }
  const sendSpec = (label: string): ProcessSpec => {
    const { TOKEN_DIR, ...env } = envs[label] as Record<string, string>;
    return {
      argv: [
        join(root, "bin/agent-send-cli"),
        "--from",
        "writer",
        "--token-file",
        join(TOKEN_DIR as string, "writer.token"),
        "--to",
        "reader",
        "--body",
        "bench",
        "--json",
      ],
      env: { PATH: process.env.PATH, HOME: scratch, ...env },
      cwd: root,
    };
  };
  const loadBefore = loadavg()[0] ?? 0;
  // The launcher runs one-shot commands with the JIT off; the same PostgreSQL send with it on tells whether the
  // interpreter is where the PostgreSQL send's extra milliseconds go.
  const directJit = sendSpec("postgres_direct");
  const samples = timeAlternating(
    {
      ...Object.fromEntries(Object.keys(envs).map((label) => [label, sendSpec(label)])),
      postgres_direct_jit_on: { ...directJit, env: { ...directJit.env, BUN_JSC_useJIT: "1" } },
    },
    runs,
  );

  // 1b. Where the milliseconds go: prefixes of the same send (AGENT_COMPUTER_STARTUP_EXIT_AFTER, see
  // cli/kernel/startup-phase.ts), the executable exec'd directly as its launcher would; each phase is the
  // difference of two medians.
  const phases = ["argv-parsed", "store-open", "command-run"] as const;
  const asLauncherSetsIt = { AGENT_COMPUTER_INVOKED_AS: "agent-send-cli", BUN_JSC_useJIT: "0", AGENT_COMPUTER_JIT_OFF: "1" };
  const phaseSpecs: Record<string, ProcessSpec> = {};
  for (const label of Object.keys(envs)) {
    const full = sendSpec(label);
    for (const phase of phases) {
      phaseSpecs[`${label} ${phase}`] = {
        ...full,
        argv: [join(root, "dist/agent-computer"), ...full.argv.slice(1)],
        env: { ...full.env, ...asLauncherSetsIt, AGENT_COMPUTER_STARTUP_EXIT_AFTER: phase },
      };
    }
  }
  const phaseSamples = timeAlternating(phaseSpecs, Math.ceil(runs / 2));
  const phaseP50 = (label: string, phase: string) => percentile(phaseSamples[`${label} ${phase}`]?.wall_ms ?? [], 50);
  const breakdown = Object.fromEntries(
    Object.keys(envs).map((label) => [
      label,
      {
        "start-up to argv parsed": round(phaseP50(label, "argv-parsed")),
        "token read, store opened (connection, migration check)": round(
          phaseP50(label, "store-open") - phaseP50(label, "argv-parsed"),
        ),
        "the send (its transaction)": round(phaseP50(label, "command-run") - phaseP50(label, "store-open")),
      },
    ]),
  );

  // 2. Opening a connection, in this process, in alternation.
  const direct = new URL(directUrl);
  const opens: Record<string, () => Promise<void>> = {
    direct_with_session_parameters: () => openAndQuery({ url: direct.toString(), connection: { ...SESSION_SETTINGS } }),
    direct_without_parameters: () => openAndQuery({ url: direct.toString() }),
    pgbouncer_transaction: () => openAndQuery({ url: bouncer.url, prepare: false }),
    pgbouncer_transaction_trust: () => openAndQuery({ url: trustBouncer.url, prepare: false }),
  };
  const openSamples: Record<string, number[]> = Object.fromEntries(Object.keys(opens).map((k) => [k, []]));
  for (let round = 0; round < runs + 3; round++) {
    for (const [label, open] of Object.entries(opens)) {
      const start = performance.now();
      await open();
      if (round >= 3) openSamples[label]?.push(performance.now() - start);
    }
  }
  const open = new SQL({ url: direct.toString(), max: 1 });
  await open.unsafe("SELECT 1");
  const roundTrips: number[] = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    await open.unsafe("SELECT 1");
    roundTrips.push(performance.now() - start);
  }
  await open.close();

  // 3. Costs of a fresh process and a fresh server connection that no statement count removes. (a) Constructing
  // the first Bun.SQL in a new process loads the client's built-in modules: timed inside a child process with the
  // JIT off, as the launcher runs one-shot commands. (b) The first transaction on a new server process (backend)
  // pays for its catalog caches, plans and the trigger's compilation: the first send of a store opened in this
  // (warm) process against its tenth send, when every connection of the pool has served a send.
  const firstConstruction: number[] = [];
  const constructionCode = `const s = performance.now(); new Bun.SQL({ url: ${JSON.stringify(directUrl)}, max: 1 }); console.log(performance.now() - s);`;
  for (let i = 0; i < Math.ceil(runs / 2); i++) {
    const child = Bun.spawnSync([process.execPath, "-e", constructionCode], { env: { ...process.env, BUN_JSC_useJIT: "0" } });
    firstConstruction.push(Number(child.stdout.toString()));
  }
  const sendEnv = envs.postgres_direct as Record<string, string>;
  const writerToken = readFileSync(join(sendEnv.TOKEN_DIR as string, "writer.token"), "utf8");
  const timedSend = async (store: Store): Promise<number> => {
    const start = performance.now();
    await sendMessage(depsFor(store), {
      from: "writer",
      token: writerToken,
      recipients: { kind: "to", agentIds: ["reader"] },
      body: "b",
    });
    return performance.now() - start;
  };
  const freshBackendSend: number[] = [];
  const warmBackendSend: number[] = [];
  for (let i = 0; i < Math.ceil(runs / 2); i++) {
    const store = await openStore({
      AGENT_COMPUTER_HOME: sendEnv.AGENT_COMPUTER_HOME as string,
      AGENT_COMPUTER_DATABASE_URL: directUrl,
    });
    freshBackendSend.push(await timedSend(store));
    for (let n = 2; n < 10; n++) await timedSend(store);
    warmBackendSend.push(await timedSend(store));
    await store.close();
  }

  const p50 = (label: string) => percentile(samples[label]?.wall_ms ?? [], 50);
  const results = {
    runs,
    load_average_1m: { before: round(loadBefore), after: round(loadavg()[0] ?? 0) },
    agent_send_cli_wall_ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, spread(v.wall_ms)])),
    agent_send_cli_cpu_ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, spread(v.cpu_ms)])),
    ratios_p50: {
      postgres_direct_over_sqlite: round(p50("postgres_direct") / p50("sqlite")),
      postgres_pgbouncer_transaction_over_sqlite: round(p50("postgres_pgbouncer_transaction") / p50("sqlite")),
      postgres_pgbouncer_transaction_trust_over_sqlite: round(p50("postgres_pgbouncer_transaction_trust") / p50("sqlite")),
      postgres_direct_jit_on_over_jit_off: round(p50("postgres_direct_jit_on") / p50("postgres_direct")),
    },
    targets: { postgres_over_sqlite_max: 1.5 },
    breakdown_wall_p50_ms: breakdown,
    connection_open_and_select_1_ms: Object.fromEntries(Object.entries(openSamples).map(([k, v]) => [k, spread(v)])),
    select_1_on_an_open_connection_ms: spread(roundTrips),
    first_bun_sql_construction_in_a_fresh_process_jit_off_ms: spread(firstConstruction),
    in_process_send_first_on_a_fresh_connection_ms: spread(freshBackendSend),
    in_process_send_with_warm_connections_ms: spread(warmBackendSend),
    password_encryption: (await admin.unsafe("SHOW password_encryption"))[0]?.password_encryption,
  };
  const file = writeResults("cli-send", results);
  console.log(JSON.stringify(results, null, 2));
  console.log(`written to ${file}`);
} finally {
  await bouncer.stop();
  await trustBouncer.stop();
  for (const name of databases) await dropDatabase(admin, name);
  await admin.close();
  rmSync(scratch, { recursive: true, force: true });
}

async function openAndQuery(options: ConstructorParameters<typeof SQL>[0] & object): Promise<void> {
  const sql = new SQL({ ...options, max: 1 });
  await sql.unsafe("SELECT 1");
  await sql.close();
}
