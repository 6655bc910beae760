// The 100-host part of bench/growth.ts: start the hosts (growth-hosts.ts) on the bench's own PostgreSQL, then
// measure two idle windows (nothing armed; one idle agent armed on every host) and the wake latency of one message
// among them. Statements come from pg_stat_statements (every statement, BEGIN and COMMIT included), transactions
// from pg_stat_database, connections from pg_stat_activity, CPU from this process and from /proc for the server's
// processes (the postmaster and its children).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import { readInbox } from "../app/agent_computer/src/domain/mesh/inbox.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { type SimHost, startHost } from "./growth-hosts.ts";
import { round, summarize } from "./lib.ts";
import { DATABASE, startOwnPostgres, treeCpuMs, whyNoOwnPostgres } from "./own-postgres.ts";

export interface FleetBudget {
  hosts: number;
  /** Each idle window, after settleMs for the hosts to reach their steady state. */
  windowMs: number;
  settleMs: number;
  wakeSamples: number;
}

type Monitor = InstanceType<typeof Bun.SQL>;

interface Snapshot {
  at: number;
  statements: Map<string, { calls: number; query: string }>;
  transactions: number;
  cpu: NodeJS.CpuUsage;
  serverCpuMs: number;
}

const snapshot = async (monitor: Monitor, postmaster: number): Promise<Snapshot> => {
  const rows = (await monitor.unsafe(
    `SELECT s.queryid::text AS id, s.query, s.calls::float8 AS calls FROM pg_stat_statements s
     JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = '${DATABASE}'`,
  )) as { id: string; query: string; calls: number }[];
  const [db] = (await monitor.unsafe(
    `SELECT (xact_commit + xact_rollback)::float8 AS x FROM pg_stat_database WHERE datname = '${DATABASE}'`,
  )) as { x: number }[];
  return {
    at: performance.now(),
    statements: new Map(rows.map((r) => [r.id, { calls: Number(r.calls), query: r.query }])),
    transactions: Number(db?.x ?? 0),
    cpu: process.cpuUsage(),
    serverCpuMs: treeCpuMs(postmaster),
  };
};

const connections = async (monitor: Monitor): Promise<Record<string, number>> => {
  const rows = (await monitor.unsafe(
    `SELECT COALESCE(state, 'none') AS state, COUNT(*)::int AS n FROM pg_stat_activity
     WHERE datname = '${DATABASE}' GROUP BY 1`,
  )) as { state: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
};

const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i;

/** One window of `ms`: what the hosts cost the server and this process, per host and second. */
const idleWindow = async (monitor: Monitor, postmaster: number, hosts: number, ms: number) => {
  const before = await snapshot(monitor, postmaster);
  const seen: Record<string, number>[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    seen.push(await connections(monitor));
    await Bun.sleep(Math.min(1000, Math.max(0, end - Date.now())));
  }
  const after = await snapshot(monitor, postmaster);
  const seconds = (after.at - before.at) / 1000;
  const perHostPerS = (n: number) => round(n / seconds / hosts, 3);
  const deltas = [...after.statements].map(([id, s]) => ({
    query: s.query.replace(/\s+/g, " ").slice(0, 200),
    calls: s.calls - (before.statements.get(id)?.calls ?? 0),
  }));
  const total = deltas.reduce((a, d) => a + d.calls, 0);
  const control = deltas.filter((d) => TRANSACTION_CONTROL.test(d.query)).reduce((a, d) => a + d.calls, 0);
  const totals = seen.map((c) => Object.values(c).reduce((a, b) => a + b, 0));
  const cpuMs = (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1000;
  return {
    seconds: round(seconds, 1),
    load_average_1m: round(loadavg()[0] ?? 0),
    statements_per_s_per_host: perHostPerS(total),
    statements_per_s_per_host_without_begin_commit: perHostPerS(total - control),
    transactions_per_s_per_host: perHostPerS(after.transactions - before.transactions),
    connections: {
      max_total: Math.max(...totals),
      max_per_host: round(Math.max(...totals) / hosts, 2),
      by_state_at_end: seen.at(-1),
    },
    // Per cent of one core per host: milliseconds of CPU per second, divided by 10.
    bench_process_cpu_percent_per_host: round(cpuMs / seconds / hosts / 10, 3),
    server_cpu_percent_per_host: round((after.serverCpuMs - before.serverCpuMs) / seconds / hosts / 10, 3),
    top_statements: deltas
      .filter((d) => d.calls > 0)
      .sort((a, b) => b.calls - a.calls)
      .slice(0, 8)
      .map((d) => ({ per_s_per_host: perHostPerS(d.calls), query: d.query })),
  };
};

/** A message to one armed agent among all the hosts' agents: from the send to the prompt in its pane. */
const wakeLatency = async (
  monitor: Monitor,
  postmaster: number,
  hosts: SimHost[],
  sleepers: { agentId: string; token: string }[],
  samples: number,
  idlePerSecondPerHost: number,
) => {
  const sender = hosts[0] as SimHost;
  const waker = await checkIn(sender.deps, { agentId: "waker", token: undefined, ttlSeconds: 86_400 });
  const latencies: number[] = [];
  const before = await snapshot(monitor, postmaster);
  for (let k = 0; k < samples; k++) {
    const index = (k * 37 + 11) % hosts.length;
    const host = hosts[index] as SimHost;
    const sleeper = sleepers[index] as { agentId: string; token: string };
    const seen = host.prompts.length;
    const t0 = performance.now();
    await sendMessage(sender.deps, {
      from: "waker",
      token: waker.agent_token,
      recipients: { kind: "to", agentIds: [sleeper.agentId] },
      body: `wake ${k}`,
    });
    const deadline = Date.now() + 15_000;
    while (host.prompts.length === seen && Date.now() < deadline) await Bun.sleep(1);
    const prompt = host.prompts[seen];
    if (!prompt) throw new Error(`no wake prompt on ${host.id} within 15 s (${host.logged.last})`);
    latencies.push(prompt.at - t0);
    const wakeToken = /--wake-token ([0-9a-f]{16})/.exec(prompt.text)?.[1];
    await readInbox(host.deps, { agentId: sleeper.agentId, token: sleeper.token, limit: 50, wakeToken });
    await Bun.sleep(300);
  }
  const after = await snapshot(monitor, postmaster);
  let statements = 0;
  for (const [id, s] of after.statements) statements += s.calls - (before.statements.get(id)?.calls ?? 0);
  const idle = idlePerSecondPerHost * hosts.length * ((after.at - before.at) / 1000);
  return {
    send_to_prompt: summarize(latencies),
    statements_per_sample_all_hosts: round(statements / samples, 1),
    statements_per_sample_above_idle: round((statements - idle) / samples, 1),
    note:
      "each sample: one send, the wake, the woken agent's inbox read, 300 ms of idle. Above idle: less what the " +
      "hosts' idle polls would have sent in that time (the armed window's rate): the send, the read, and every host's " +
      "watcher looking at its armed agent when the NOTIFY of a delivery reaches it (WAKE_CHANNEL is one channel for all)",
  };
};

export const measureFleet = async (budget: FleetBudget, extraEnv: Record<string, string>) => {
  const why = whyNoOwnPostgres();
  if (why) return { skipped: why };
  const pg = await startOwnPostgres(budget.hosts * 6 + 50);
  const monitor = new Bun.SQL({ url: pg.url.replace(new RegExp(`/${DATABASE}$`), "/postgres"), max: 1 });
  const baseDir = mkdtempSync(join(tmpdir(), "ac-bench-fleet-"));
  const hosts: SimHost[] = [];
  try {
    const started = performance.now();
    for (let i = 0; i < budget.hosts; i++) hosts.push(await startHost(i, baseDir, pg.url, extraEnv));
    const startSeconds = round((performance.now() - started) / 1000, 1);
    await Bun.sleep(budget.settleMs);
    const idle = await idleWindow(monitor, pg.postmasterPid(), hosts.length, budget.windowMs);
    const sleepers = [];
    for (const host of hosts) sleepers.push(await host.arm());
    await Bun.sleep(budget.settleMs);
    const armed = await idleWindow(monitor, pg.postmasterPid(), hosts.length, budget.windowMs);
    const wake = await wakeLatency(
      monitor,
      pg.postmasterPid(),
      hosts,
      sleepers,
      budget.wakeSamples,
      armed.statements_per_s_per_host,
    );
    const logged = hosts.reduce((a, h) => ({ warn: a.warn + h.logged.warn, error: a.error + h.logged.error }), {
      warn: 0,
      error: 0,
    });
    return {
      hosts: hosts.length,
      server: `PostgreSQL 15 of the bench's own (max_connections ${pg.maxConnections}, pg_stat_statements), on this machine`,
      seconds_to_start_all_hosts: startSeconds,
      idle_nothing_armed: idle,
      idle_one_armed_agent_per_host: armed,
      wake_latency_one_message_among_all: wake,
      services_logged: { ...logged, last: hosts.find((h) => h.logged.last)?.logged.last ?? null },
    };
  } finally {
    await Promise.all(hosts.map((h) => h.stop().catch(() => undefined)));
    await monitor.close();
    await pg.stop();
    rmSync(baseDir, { recursive: true, force: true });
  }
};
