// The three-host scenario once, for its figures (root only: the hosts are network namespaces, see
// test/helpers/netns-hosts.ts): messages per second between agents on three hosts through one PostgreSQL, each a
// real agent-send-cli process on its own host, and trigger-to-start latency (checkback due → the script's first
// line) with a worker on each of the three hosts. Writes bench/results/multi-host.json.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import { createJob } from "../app/agent_computer/src/domain/automation/jobs.ts";
import { createCheckback } from "../app/agent_computer/src/domain/automation/triggers.ts";
import type { Deps } from "../app/agent_computer/src/domain/deps.ts";
import { newId } from "../app/agent_computer/src/domain/ids.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import { startHosts, type TestHost, whyNoNamespaces } from "../test/helpers/netns-hosts.ts";
import { round, summarize, writeResults } from "./lib.ts";

const SENDERS_PER_HOST = 2;
const SENDS_PER_SENDER = 20;
const LATENCY_SAMPLES = Number(process.env.BENCH_RUNS ?? 30);
const root = join(import.meta.dir, "..");

const why = whyNoNamespaces();
if (why) {
  console.log(`SKIPPED: multi-host bench (${why})`);
  process.exit(0);
}

const form = existsSync(join(root, "dist", "agent-computer")) ? "compiled" : "source";
const loadBefore = loadavg()[0] ?? Number.NaN;
const world = await startHosts(3, { AGENT_COMPUTER_FORM: form });
try {
  const { hosts, pg } = world;
  const checkInOn = async (host: TestHost, id: string): Promise<string> => {
    const r = await host.run("agent-checkin-cli", ["--agent-id", id, "--confirm", "--json"]);
    if (r.exitCode !== 0) throw new Error(`check-in of ${id} failed: ${r.stderr}`);
    const file = join(host.home, `${id}.token`);
    writeFileSync(file, r.json<{ agent_token: string }>().agent_token, { mode: 0o600 });
    return file;
  };
  const tokens = await Promise.all(hosts.map((h, i) => checkInOn(h, `bench-${i + 1}`)));

  // Messages: every host's agent sends to the next host's agent, SENDERS_PER_HOST processes at a time per host.
  const sendMs: number[] = [];
  const started = performance.now();
  await Promise.all(
    hosts.flatMap((host, i) =>
      Array.from({ length: SENDERS_PER_HOST }, async (_, s) => {
        for (let k = 0; k < SENDS_PER_SENDER; k++) {
          const t0 = performance.now();
          const r = await host.run("agent-send-cli", [
            ...["--agent-id", `bench-${i + 1}`, "--token-file", tokens[i] as string],
            ...["--to", `bench-${((i + 1) % hosts.length) + 1}`, "--body", `m ${s}.${k}`, "--json"],
          ]);
          if (r.exitCode !== 0) throw new Error(`send failed: ${r.stderr}`);
          sendMs.push(performance.now() - t0);
        }
      }),
    ),
  );
  const sent = hosts.length * SENDERS_PER_HOST * SENDS_PER_SENDER;
  const messagesPerSecond = round(sent / ((performance.now() - started) / 1000), 1);
  const [stored] = await pg.sql("SELECT COUNT(*) AS n FROM deliveries WHERE state = 'pending'");
  if (Number(stored?.n) !== sent) throw new Error(`${sent} messages sent, ${String(stored?.n)} pending deliveries stored`);

  // Trigger to start: checkbacks due one after another, three workers (one a host) racing for each.
  const workers = await Promise.all(hosts.map((h) => h.startWorker(["--concurrency", "4"])));
  const store = await openStore({
    AGENT_COMPUTER_HOME: mkdtempSync(join(tmpdir(), "ac-bench-mh-")),
    AGENT_COMPUTER_DATABASE_URL: pg.url("127.0.0.1"),
  });
  const deps = (): Deps => ({ store, now: () => Date.now(), host: "bench", newId });
  const owner = await checkIn(deps(), { agentId: "bench-owner", token: undefined, ttlSeconds: 86_400 });
  const dir = mkdtempSync(join(tmpdir(), "ac-bench-mh-job-"));
  writeFileSync(join(dir, "main.ts"), "console.log(Date.now());\n");
  const auth = { agentId: "bench-owner", token: owner.agent_token as string };
  const job = await createJob(deps(), { ...auth, dir, label: "bench", wakeOnFailure: false, timeoutSeconds: 60 });
  const first = Date.now() + 2000;
  const due = new Map<string, number>();
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const cb = await createCheckback(deps(), { ...auth, dueAt: first + i * 150, jobId: job.id, baseUrl: "http://x" });
    due.set(cb.id, first + i * 150);
  }
  let runs: Record<string, unknown>[] = [];
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await Bun.sleep(100)) {
    runs = await pg.sql(
      `SELECT r.trigger_id, r.stdout_tail, w.host FROM automation_runs r
       JOIN automation_attempts a ON a.run_id = r.id JOIN automation_workers w ON w.id = a.worker_id
       WHERE r.job_id = $1 AND r.state = 'succeeded'`,
      [job.id],
    );
    if (runs.length >= LATENCY_SAMPLES) break;
  }
  if (runs.length < LATENCY_SAMPLES) throw new Error(`only ${runs.length} of ${LATENCY_SAMPLES} runs finished`);
  const latency = runs.map((r) => Number(String(r.stdout_tail).trim()) - (due.get(String(r.trigger_id)) ?? Number.NaN));
  const byHost: Record<string, number> = {};
  for (const r of runs) byHost[String(r.host)] = (byHost[String(r.host)] ?? 0) + 1;
  await store.close();
  for (const w of workers) w.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.process));

  const file = writeResults("multi-host", {
    topology: "3 hosts (network namespaces, each its own host id, state dir and worker) on one PostgreSQL 15 over veth links",
    binary_form: form,
    // Every figure here is mostly process start-up and CPU on a shared 2-core machine: read it beside the load.
    load_average_1m: { before: round(loadBefore), after: round(loadavg()[0] ?? Number.NaN) },
    messages: {
      sent,
      concurrent_senders: hosts.length * SENDERS_PER_HOST,
      messages_per_second: messagesPerSecond,
      send_cli: summarize(sendMs),
    },
    trigger_to_script_start: { workers: hosts.length, ...summarize(latency), runs_by_host: byHost },
  });
  console.log(`messages across hosts: ${sent} in ${messagesPerSecond}/s (agent-send-cli p50 ${summarize(sendMs).p50_ms} ms)`);
  console.log(`trigger → script start with 3 workers: p50 ${summarize(latency).p50_ms} ms, p95 ${summarize(latency).p95_ms} ms`);
  console.log(`runs by host: ${JSON.stringify(byHost)}`);
  console.log(`written: ${file}`);
} finally {
  await world.teardown();
}
