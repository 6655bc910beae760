// Three hosts on one PostgreSQL, for real: each host is a network namespace (test/helpers/netns-hosts.ts) with its
// own host name, host id, HOME, state directory and agent-computer-worker, reaching the suite's own PostgreSQL over
// its link. Agents on the three hosts message each other; triggers fire exactly once across the three workers; a
// worker killed mid-run loses its attempt to another host; a host cut off past a session's ttl is rescued around and
// carries on when its link returns; PostgreSQL restarted under load costs no message; and no host-local fact (pid,
// pane id, boot id, wake registration) reaches the shared database.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { signStandard } from "../../app/agent_computer/src/domain/automation/webhook-verify.ts";
import { WAKE_PROMPT_PATTERN } from "../../app/agent_computer/src/domain/wake/prompt.ts";
import { startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { emitLate, jobDir, scratchDir, waitFor } from "../helpers/automation.ts";
import type { BinResult } from "../helpers/bin.ts";
import { type HostWorker, startHosts, type TestHost, type TestHosts, whyNoNamespaces } from "../helpers/netns-hosts.ts";

const noNamespaces = whyNoNamespaces();
if (noNamespaces) {
  console.warn(`SKIPPED: multi-host suite (${noNamespaces})`);
  if (process.env.CI === "true") throw new Error(`CI=true but the multi-host suite cannot run: ${noNamespaces}`);
}

const WORKER_ARGS = ["--concurrency", "2", "--lease-seconds", "3", "--poll-ms", "100"];

interface Agent {
  id: string;
  host: TestHost;
  tokenFile: string;
}

/** Runs a CLI on the agent's host as the agent, with --json; throws unless it exits as expected. */
const as = async <T = Record<string, unknown>>(agent: Agent, bin: string, args: string[], expectExit = 0): Promise<T> => {
  const words = bin.split(" ");
  const r = await agent.host.run(words[0] as string, [
    ...words.slice(1),
    "--agent-id",
    agent.id,
    "--token-file",
    agent.tokenFile,
    ...args,
    "--json",
  ]);
  if (r.exitCode !== expectExit) throw new Error(`${bin} on ${agent.host.name} exited ${r.exitCode}: ${r.stderr}`);
  return (expectExit === 0 ? r.json() : JSON.parse(r.stderr)) as T;
};

const checkIn = async (host: TestHost, id: string, extra: string[] = []): Promise<Agent> => {
  const r = await host.run("agent-checkin-cli", ["--agent-id", id, "--confirm", "--json", ...extra]);
  if (r.exitCode !== 0) throw new Error(`check-in of ${id} on ${host.name} failed: ${r.stderr}`);
  const tokenFile = join(host.home, `${id}.token`);
  const token = r.json<{ agent_token?: string }>().agent_token;
  if (token) writeFileSync(tokenFile, token, { mode: 0o600 });
  return { id, host, tokenFile };
};

const errorOf = (r: Pick<BinResult, "stderr">) => (JSON.parse(r.stderr) as { error: Record<string, unknown> }).error;

/** A CLI that could not use PostgreSQL: exit 8, STORE_UNAVAILABLE, no stack trace. Returns the error, for more. */
const unavailable = (r: Pick<BinResult, "exitCode" | "stderr">): Record<string, unknown> => {
  expect(r.exitCode, r.stderr).toBe(8);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const error = errorOf(r);
  expect(error.code).toBe("STORE_UNAVAILABLE");
  return error;
};

/** Attempt 1 leaves its credentials and pid, then waits for a release file; later attempts emit and end. */
const heldFirstAttempt = (out: string) => `import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { context, emitEvent } from "agent-computer/automation";
const { run } = context();
const at = ${JSON.stringify(out)} + "/" + run.id + "-" + run.attempt;
writeFileSync(at + ".json", readFileSync(process.env.AGENT_COMPUTER_ATTEMPT_FILE!));
writeFileSync(at + ".pid", String(process.pid));
if (run.attempt === 1) while (!existsSync(${JSON.stringify(out)} + "/release-" + run.id)) await Bun.sleep(100);
await emitEvent({ finished_by_attempt: run.attempt });
`;

const alive = (pid: number): boolean => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");

describe.skipIf(noNamespaces !== undefined)(
  `three hosts (network namespaces) on one PostgreSQL${noNamespaces ? ` [skipped: ${noNamespaces}]` : ""}`,
  () => {
    let world: TestHosts;
    let hosts: TestHost[];
    const workers = new Map<string, HostWorker>();
    const agents: Agent[] = [];
    const sql = (text: string, params: unknown[] = []) => world.pg.sql(text, params);
    /** Facts that must stay on their host; item 3 looks for each in the shared database at the end. */
    const hostLocal = new Set<string>();

    const startWorker = async (host: TestHost) => {
      const w = await host.startWorker(WORKER_ARGS);
      workers.set(host.name, w);
      hostLocal.add(String(w.pid));
      return w;
    };
    /** The host whose worker holds the given attempt of a run. */
    const holderOf = async (runId: string, attempt: number): Promise<TestHost> => {
      const [row] = await sql(
        `SELECT w.host FROM automation_attempts a JOIN automation_workers w ON w.id = a.worker_id
         WHERE a.run_id = $1 AND a.attempt = $2`,
        [runId, attempt],
      );
      const host = hosts.find((h) => h.name === row?.host);
      if (!host) throw new Error(`no host holds attempt ${attempt} of ${runId}`);
      return host;
    };
    const runRow = async (runId: string) =>
      (await sql("SELECT state, attempt FROM automation_runs WHERE id = $1", [runId]))[0] as
        | { state: string; attempt: number }
        | undefined;

    beforeAll(async () => {
      world = await startHosts(3);
      hosts = world.hosts;
      for (const h of hosts) await startWorker(h);
      for (const [i, h] of hosts.entries()) agents.push(await checkIn(h, `agent-${i + 1}`, ["--role", "builder"]));
    }, 120_000);
    afterAll(async () => world?.teardown(), 60_000);

    test("agents on three hosts message each other: every message delivered once, outcomes truthful", async () => {
      const PER_PAIR = 5;
      const sends = await Promise.all(
        agents.map(async (from) => {
          const others = agents.filter((a) => a !== from).flatMap((a) => ["--to", a.id]);
          const results = [];
          for (let k = 0; k < PER_PAIR; k++)
            results.push(await as<SendJson>(from, "agent-send-cli", [...others, "--body", `${from.id} #${k}`]));
          return results;
        }),
      );
      const outcomes = sends.flat().flatMap((s) => s.recipients.map((r) => r.outcome));
      expect(outcomes).toEqual(Array(agents.length * PER_PAIR * 2).fill("live"));

      for (const reader of agents) {
        const inbox = await as<InboxJson>(reader, "agent-inbox-cli", ["--limit", "100"]);
        const bodies = inbox.messages.map((m) => m.body).sort();
        const expected = agents
          .filter((a) => a !== reader)
          .flatMap((a) => Array.from({ length: PER_PAIR }, (_, k) => `${a.id} #${k}`))
          .sort();
        expect(bodies).toEqual(expected);
        expect(new Set(inbox.messages.map((m) => m.id)).size).toBe(expected.length);
        const seqs = inbox.messages.map((m) => m.seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        await as(reader, "agent-ack-cli", ["--up-to-seq", String(seqs.at(-1))]);
      }
      for (const sender of agents) {
        const sent = await as<{ messages: { recipients: { state: string }[] }[] }>(sender, "agent-sent-cli", []);
        expect(sent.messages.flatMap((m) => m.recipients.map((r) => r.state))).toEqual(Array(PER_PAIR * 2).fill("acked"));
      }
    });

    test("the directory says which host each agent is on, and that a remote agent's liveness rests on age", async () => {
      const [first, second] = hosts as [TestHost, TestHost];
      // An agent registered with its process id: only its own host can probe that pid.
      const pidHolder = (workers.get(first.name) as HostWorker).pid;
      const stat = readFileSync(`/proc/${pidHolder}/stat`, "utf8");
      const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] as string;
      const registered = await first.run("register-agent-cli", [
        "--agent-id",
        "pid-agent",
        "--role",
        "builder",
        "--capabilities",
        "ts",
        "--agent-pid",
        String(pidHolder),
        "--agent-pid-start",
        start,
        "--host-shell-pids",
        `${pidHolder},1`,
        "--json",
      ]);
      expect(registered.exitCode, registered.stderr).toBe(0);
      hostLocal.add(start);

      const directoryOn = async (host: TestHost) => {
        const r = await host.run("agents-list-cli", ["--json"]);
        expect(r.exitCode, r.stderr).toBe(0);
        return new Map(r.json<{ agents: DirectoryJson[] }>().agents.map((a) => [a.agent_id, a]));
      };
      const onFirst = await directoryOn(first);
      const onSecond = await directoryOn(second);
      for (const [i, h] of hosts.entries()) {
        expect(onFirst.get(`agent-${i + 1}`)).toMatchObject({ host: h.name, alive: true, liveness_evidence: "age" });
        expect(onSecond.get(`agent-${i + 1}`)).toMatchObject({ host: h.name, alive: true, liveness_evidence: "age" });
      }
      expect(onFirst.get("pid-agent")).toMatchObject({ host: first.name, alive: true, liveness_evidence: "pid" });
      expect(onSecond.get("pid-agent")).toMatchObject({ host: first.name, alive: true, liveness_evidence: "age" });
    });

    test("auto-wake across hosts: an agent armed on one host is woken by that host's worker for mail from another", async () => {
      const [, second] = hosts as [TestHost, TestHost];
      const fake = await startFakeHerdr({ timing: { submitDelayMs: 20, turnStartMs: 20, turnMs: 100 } });
      try {
        const pane = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp" });
        const paneEnv = { ...fake.env, HERDR_ENV: "1", HERDR_PANE_ID: pane.pane_id };
        const armed = await second.run(
          "agent-checkin-cli",
          ["--agent-id", "woken-2", "--herdr-pane", pane.pane_id, "--confirm", "--json"],
          {
            env: paneEnv,
          },
        );
        expect(armed.exitCode, armed.stderr).toBe(0);
        const wake = armed.json<{ herdr_wake: { state: string; watcher?: { pid: number } } }>().herdr_wake;
        // Served by the host's own worker, not by a watcher of another host (nor a light one started beside it).
        expect(wake).toMatchObject({ state: "armed", watcher: { pid: (workers.get(second.name) as HostWorker).pid } });
        hostLocal.add(pane.pane_id);
        const wakeDir = join(second.env.AGENT_COMPUTER_HOME as string, "wake");
        for (const dir of readdirSync(wakeDir)) hostLocal.add(join(wakeDir, dir));
        const woken: Agent = { id: "woken-2", host: second, tokenFile: join(second.home, "woken-2.token") };
        writeFileSync(woken.tokenFile, armed.json<{ agent_token: string }>().agent_token, { mode: 0o600 });

        await as(agents[0] as Agent, "agent-send-cli", ["--to", woken.id, "--body", "from the first host"]);
        const [prompt] = await waitFor(
          async () => {
            const prompts = await fake.prompts(pane.pane_id);
            return prompts.length > 0 ? prompts : undefined;
          },
          30_000,
          "the wake prompt",
        );
        expect(prompt?.text).toMatch(WAKE_PROMPT_PATTERN);
        const read = await as<InboxJson>(woken, "agent-inbox-cli", ["--wake-token", (prompt?.text ?? "").slice(-16)]);
        expect(read.messages.map((m) => m.body)).toEqual(["from the first host"]);
      } finally {
        await fake.stop();
      }
    });

    test("checkbacks, cron ticks and webhook deliveries fire exactly once across the three workers", async () => {
      const owner = agents[0] as Agent;
      const job = await as<{ id: string }>(owner, "create-automation-job-cli", [
        "--dir",
        jobDir('console.log("ran");'),
        "--label",
        "count me",
      ]);
      const CHECKBACKS = 12;
      const checkbacks = await Promise.all(
        Array.from({ length: CHECKBACKS }, () =>
          as<{ id: string }>(owner, "create-checkback-cli", ["--in", "3s", "--job-id", job.id]),
        ),
      );
      const cron = await as<{ id: string }>(owner, "create-cron-schedule-cli", ["--cron", "* * * * * *", "--job-id", job.id]);
      const hook = await as<{ id: string; secret: string }>(owner, "create-webhook-cli", [
        "--label",
        "multi-host",
        "--job-id",
        job.id,
      ]);
      // Each delivery goes to all three workers at once, the way a sender retrying through a load balancer would.
      const DELIVERIES = 8;
      const answers = await Promise.all(
        Array.from({ length: DELIVERIES }, async (_, d) => {
          const id = `msg_multihost_${d}`;
          const ts = Math.floor(Date.now() / 1000);
          const body = JSON.stringify({ delivery: d });
          const statuses = await Promise.all(
            [...workers.values()].map(async (w) => {
              const r = await fetch(`${w.url}/hooks/${hook.id}`, {
                method: "POST",
                headers: {
                  "content-type": "application/json",
                  "webhook-id": id,
                  "webhook-timestamp": String(ts),
                  "webhook-signature": signStandard(hook.secret, id, ts, body),
                },
                body,
              });
              return r.status;
            }),
          );
          return statuses.sort();
        }),
      );
      expect(answers).toEqual(Array(DELIVERIES).fill([200, 200, 202]));
      await waitFor(
        async () =>
          Number((await sql("SELECT COUNT(*) AS n FROM automation_firings WHERE trigger_id = $1", [cron.id]))[0]?.n) >= 3
            ? true
            : undefined,
        60_000,
        "three cron ticks",
      );
      await as(owner, "cancel-trigger-cli", ["--id", cron.id]);

      const expectedRuns = async () =>
        CHECKBACKS +
        DELIVERIES +
        Number((await sql("SELECT COUNT(*) AS n FROM automation_firings WHERE trigger_id = $1", [cron.id]))[0]?.n);
      const total = await expectedRuns();
      await waitFor(
        async () => {
          const [done] = await sql("SELECT COUNT(*) AS n FROM automation_runs WHERE job_id = $1 AND state = 'succeeded'", [
            job.id,
          ]);
          return Number(done?.n) >= total ? true : undefined;
        },
        90_000,
        `${total} runs to succeed`,
      );
      // Read once every run has succeeded: the cron's third tick can come before the checkbacks are due (--in 3s).
      const firings = await sql(
        `SELECT t.id, t.kind, (SELECT COUNT(*) FROM automation_firings f WHERE f.trigger_id = t.id) AS firings
         FROM automation_triggers t WHERE t.kind = 'checkback' AND t.id = ANY($1)`,
        [checkbacks.map((c) => c.id)],
      );
      expect(firings.filter((f) => Number(f.firings) !== 1)).toEqual([]);
      const perTrigger = await sql(
        `SELECT r.trigger_id, r.fire_key, COUNT(*) AS runs FROM automation_runs r WHERE r.job_id = $1
         GROUP BY r.trigger_id, r.fire_key HAVING COUNT(*) <> 1`,
        [job.id],
      );
      expect(perTrigger).toEqual([]);
      const runs = await sql("SELECT COUNT(*) AS n FROM automation_runs WHERE job_id = $1", [job.id]);
      expect(Number(runs[0]?.n)).toBe(total);
      const attempts = await sql(
        `SELECT a.attempt, w.host FROM automation_attempts a JOIN automation_runs r ON r.id = a.run_id
         JOIN automation_workers w ON w.id = a.worker_id WHERE r.job_id = $1`,
        [job.id],
      );
      expect(attempts.length).toBe(total);
      expect(attempts.filter((a) => Number(a.attempt) !== 1)).toEqual([]);
      expect(new Set(attempts.map((a) => a.host)).size).toBeGreaterThan(1);
    });

    test("SIGKILL of one host's worker mid-run: another host's worker runs attempt 2; the lost attempt's late write is refused", async () => {
      const owner = agents[1] as Agent;
      const out = scratchDir();
      const job = await as<{ id: string }>(owner, "create-automation-job-cli", [
        "--dir",
        jobDir(heldFirstAttempt(out)),
        "--label",
        "held",
      ]);
      const { run_id } = await as<{ run_id: string }>(owner, "run-automation-job-cli", ["--id", job.id]);
      await waitFor(async () => (existsSync(join(out, `${run_id}-1.pid`)) ? true : undefined), 30_000, "attempt 1 to start");
      const victim = await holderOf(run_id, 1);
      const victimWorker = workers.get(victim.name) as HostWorker;
      victimWorker.kill("SIGKILL");
      await victimWorker.process;
      const scriptPid = Number(readFileSync(join(out, `${run_id}-1.pid`), "utf8"));
      await waitFor(async () => (alive(scriptPid) ? undefined : true), 10_000, "the killed worker's script to die");

      await waitFor(
        async () => ((await runRow(run_id))?.state === "succeeded" ? true : undefined),
        60_000,
        "attempt 2 to finish",
      );
      expect(await runRow(run_id)).toMatchObject({ state: "succeeded", attempt: 2 });
      const rescuer = await holderOf(run_id, 2);
      expect(rescuer.name).not.toBe(victim.name);
      const outcomes = await sql("SELECT attempt, outcome FROM automation_attempts WHERE run_id = $1 ORDER BY attempt", [run_id]);
      expect(outcomes.map((o) => [Number(o.attempt), o.outcome])).toEqual([
        [1, "lost"],
        [2, "succeeded"],
      ]);

      // The lost attempt speaks up late, from its own host, to the rescuing host's worker.
      const stale = JSON.parse(readFileSync(join(out, `${run_id}-1.json`), "utf8"));
      const staleFile = join(out, "stale-attempt.json");
      writeFileSync(
        staleFile,
        JSON.stringify({ ...stale, emit_url: `${(workers.get(rescuer.name) as HostWorker).url}/attempts/events` }),
      );
      expect(await emitLate(staleFile)).toBe("AttemptFencedError");
      const events = await sql("SELECT COUNT(*) AS n FROM messages WHERE body LIKE $1", [`%${run_id}%`]);
      expect(Number(events[0]?.n)).toBe(1);
      await startWorker(victim);
    });

    /** Starts `count` runs of a held job and waits until every one is in its first attempt (each worker holds two). */
    const heldRuns = async (owner: Agent, count: number) => {
      const out = scratchDir();
      const job = await as<{ id: string }>(owner, "create-automation-job-cli", [
        "--dir",
        jobDir(heldFirstAttempt(out)),
        "--label",
        "held",
      ]);
      const runIds: string[] = [];
      for (let i = 0; i < count; i++)
        runIds.push((await as<{ run_id: string }>(owner, "run-automation-job-cli", ["--id", job.id])).run_id);
      await waitFor(
        async () => (runIds.every((id) => existsSync(join(out, `${id}-1.pid`))) ? true : undefined),
        60_000,
        `${count} first attempts to start`,
      );
      const held = new Map<string, string[]>();
      for (const id of runIds) {
        const host = (await holderOf(id, 1)).name;
        held.set(host, [...(held.get(host) ?? []), id]);
      }
      const release = (ids: string[]) => {
        for (const id of ids) writeFileSync(join(out, `release-${id}`), "");
      };
      const pidOf = (id: string) => Number(readFileSync(join(out, `${id}-1.pid`), "utf8"));
      for (const id of runIds) hostLocal.add(String(pidOf(id)));
      return { runIds, held, release, pidOf };
    };
    const allSucceeded = (runIds: string[], what: string) =>
      waitFor(
        async () => {
          const rows = await sql("SELECT COUNT(*) AS n FROM automation_runs WHERE id = ANY($1) AND state = 'succeeded'", [
            runIds,
          ]);
          return Number(rows[0]?.n) === runIds.length ? true : undefined;
        },
        90_000,
        what,
      );

    test("a host cut off past a session's ttl: its agents turn stale, its runs are rescued, its mail bounces; then it carries on", async () => {
      const [first, , cutHost] = hosts as [TestHost, TestHost, TestHost];
      const sender = agents[0] as Agent;
      const held = await heldRuns(sender, 6);
      expect([...held.held.values()].map((ids) => ids.length)).toEqual([2, 2, 2]);
      const stranded = held.held.get(cutHost.name) as string[];
      held.release(held.runIds.filter((id) => !stranded.includes(id)));

      const idle = await checkIn(cutHost, "idle-3", ["--ttl-seconds", "60"]);
      const before = await as<SendJson>(sender, "agent-send-cli", ["--to", idle.id, "--body", "sent while its host was up"]);
      expect(before.recipients[0]?.outcome).toBe("live");

      await cutHost.cut();
      try {
        // A CLI on the cut host fails in bounded time (its connect timeout), as unavailable with the retry hint.
        const offline = await cutHost.run("agent-inbox-cli", ["--agent-id", idle.id, "--token-file", idle.tokenFile, "--json"]);
        expect(unavailable(offline)).toMatchObject({ hint: expect.stringContaining("retry") });

        // Elsewhere: the stranded runs finish as attempt 2 on the hosts still connected.
        await allSucceeded(stranded, "the cut host's runs to be rescued");
        for (const id of stranded) {
          expect(await runRow(id)).toMatchObject({ state: "succeeded", attempt: 2 });
          expect((await holderOf(id, 2)).name).not.toBe(cutHost.name);
        }
        // On the cut host: its worker stops the attempts it can no longer renew, instead of letting them run on.
        await waitFor(
          async () => (stranded.every((id) => !alive(held.pidOf(id))) ? true : undefined),
          30_000,
          "the cut host's worker to stop its fenced attempts",
        );

        // Once its ttl has passed, the idle agent is stale in the directory of another host.
        await waitFor(
          async () => {
            const r = await first.run("agents-list-cli", ["--include-stale", "--json"]);
            const entry = r.json<{ agents: DirectoryJson[] }>().agents.find((a) => a.agent_id === idle.id);
            return entry && !entry.alive ? entry : undefined;
          },
          120_000,
          "the cut host's agent to turn stale elsewhere",
        );
        // Stored, but no recipient will read it: printed on stdout all the same, and exit 9 NOT_DELIVERED.
        const duringRun = await sender.host.run("agent-send-cli", [
          "--agent-id",
          sender.id,
          "--token-file",
          sender.tokenFile,
          "--to",
          idle.id,
          "--body",
          "sent while its host was cut off",
          "--json",
        ]);
        expect(duringRun.exitCode).toBe(9);
        const during = duringRun.json<SendJson>();
        expect(during.recipients[0]?.outcome).toBe("not_checked_in");
        const sent = await as<{ messages: { id: string; recipients: { agent_id: string; state: string }[] }[] }>(
          sender,
          "agent-sent-cli",
          [],
        );
        const stateOf = (id: string) => sent.messages.find((m) => m.id === id)?.recipients[0]?.state;
        expect([stateOf(before.id), stateOf(during.id)]).toEqual(["expired_undelivered", "not_checked_in"]);
        const senderInbox = await as<InboxJson>(sender, "agent-inbox-cli", ["--limit", "100"]);
        const bounces = senderInbox.messages.filter((m) => m.kind === "bounce" && m.body.includes(before.id));
        expect(bounces.length).toBe(1);
      } finally {
        await cutHost.heal();
      }
      // Its CLIs carry on without manual steps: a check-in starts a new session, which sees neither old message.
      // The first call may still find the link coming up: then it is told to retry (exit 8), and a retry works.
      const back = await waitFor(
        async () => {
          const r = await cutHost.run("agent-checkin-cli", [
            "--agent-id",
            idle.id,
            "--token-file",
            idle.tokenFile,
            "--ttl-seconds",
            "60",
            "--confirm",
            "--json",
          ]);
          if (r.exitCode === 8) return undefined;
          expect(r.exitCode, r.stderr).toBe(0);
          return r.json<{ session_id: string }>();
        },
        30_000,
        "a check-in on the cut host once its link is back",
      );
      expect(back.session_id).toBeTruthy();
      const inbox = await as<InboxJson>(idle, "agent-inbox-cli", []);
      expect(inbox.messages).toEqual([]);
      // Its worker carries on: with every slot taken again, it holds two of six new runs and finishes them.
      const again = await heldRuns(sender, 6);
      expect(again.held.get(cutHost.name)?.length).toBe(2);
      again.release(again.runIds);
      await allSucceeded(again.runIds, "the runs after the link came back");
      const lost = await sql(
        "SELECT attempt, outcome FROM automation_attempts WHERE run_id = ANY($1) AND attempt = 1 ORDER BY run_id",
        [stranded],
      );
      expect(lost.map((a) => a.outcome)).toEqual(["lost", "lost"]);
    }, 240_000);

    test("a host whose packets to PostgreSQL vanish: its CLIs exit 8 after their connect timeout instead of hanging", async () => {
      const [, , silent] = hosts as [TestHost, TestHost, TestHost];
      const agent = agents[2] as Agent;
      await silent.silence();
      try {
        const r = await silent.run("agent-inbox-cli", ["--agent-id", agent.id, "--token-file", agent.tokenFile, "--json"]);
        expect(unavailable(r)).toMatchObject({ hint: expect.stringContaining("retry") });
      } finally {
        await silent.unsilence();
      }
      const back = await silent.run("agent-inbox-cli", ["--agent-id", agent.id, "--token-file", agent.tokenFile, "--json"]);
      expect(back.exitCode, back.stderr).toBe(0);
    });

    test("a link that goes silent under an open connection: the CLI exits 8 at the answer deadline, nothing written", async () => {
      const [receiving, , silent] = hosts as [TestHost, TestHost, TestHost];
      const from = agents[2] as Agent;
      const to = agents.find((a) => a.host === receiving) as Agent;
      // The recipient's row held by the test, so the send waits on the server with its connection open.
      const holder = new Bun.SQL({ url: world.pg.url("127.0.0.1"), max: 1 });
      const held = await holder.reserve();
      const body = `sent-into-silence-${crypto.randomUUID()}`;
      try {
        await held.unsafe("BEGIN");
        await held.unsafe("SELECT name FROM agents WHERE name = $1 FOR UPDATE", [to.id]);
        const started = performance.now();
        const send = silent.run(
          "agent-send-cli",
          ["--agent-id", from.id, "--token-file", from.tokenFile, "--to", to.id, "--body", body, "--json"],
          { timeoutMs: 90_000 },
        );
        await waitFor(
          async () =>
            (
              await sql(
                "SELECT 1 AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%agents%' AND pid <> pg_backend_pid()",
              )
            ).length > 0
              ? true
              : undefined,
          20_000,
          "the send waiting on the held row",
        );
        // Both ways: the server's lock_timeout answer (5 s from now) never reaches the host.
        await silent.silence("both");
        const r = await send;
        const waited = performance.now() - started;
        await silent.unsilence();
        const error = unavailable(r);
        expect(error).toMatchObject({ outcome: "not_applied" });
        expect(String(error.message)).toMatch(/did not answer for 35 s.*nothing was written/);
        expect(waited).toBeGreaterThan(35_000);
        expect(waited).toBeLessThan(75_000);
      } finally {
        await silent.unsilence().catch(() => undefined);
        await held.unsafe("ROLLBACK").catch(() => undefined);
        held.release();
        await holder.close();
      }
      expect(await sql("SELECT id FROM messages WHERE body = $1", [body])).toEqual([]);
      const back = await silent.run("agent-inbox-cli", ["--agent-id", from.id, "--token-file", from.tokenFile, "--json"]);
      expect(back.exitCode, back.stderr).toBe(0);
    });

    test("PostgreSQL restarted under load: CLIs exit 8 with the retry hint; every send that succeeded is delivered once; workers resume", async () => {
      interface Attempted {
        key: string;
        exitCode: number;
        stderr: string;
      }
      const attempted: Attempted[] = [];
      let phase: "before" | "down" | "after" = "before";
      const afterRestart = new Map<string, number>();
      const pairs = agents.map((from, i) => ({ from, to: agents[(i + 1) % agents.length] as Agent }));
      const load = pairs.map(async ({ from, to }) => {
        for (let k = 0; ; k++) {
          const key = `restart-${from.id}-${k}`;
          const r = await from.host.run("agent-send-cli", [
            "--agent-id",
            from.id,
            "--token-file",
            from.tokenFile,
            "--to",
            to.id,
            "--body",
            key,
            "--idempotency-key",
            key,
            "--json",
          ]);
          attempted.push({ key, exitCode: r.exitCode, stderr: r.stderr });
          if (phase === "after" && r.exitCode === 0) afterRestart.set(from.id, (afterRestart.get(from.id) ?? 0) + 1);
          if (phase === "after" && (afterRestart.get(from.id) ?? 0) >= 2) return;
        }
      });
      await waitFor(
        async () => (attempted.filter((a) => a.exitCode === 0).length >= 3 ? true : undefined),
        60_000,
        "sends before the stop",
      );
      await world.pg.stop();
      phase = "down";
      const failedBefore = attempted.length;
      await waitFor(
        async () => (attempted.slice(failedBefore).filter((a) => a.exitCode !== 0).length >= 3 ? true : undefined),
        60_000,
        "sends while the server is down",
      );
      await world.pg.start();
      phase = "after";
      await Promise.all(load);

      const failures = attempted.filter((a) => a.exitCode !== 0);
      expect(failures.length).toBeGreaterThanOrEqual(3);
      for (const f of failures) {
        expect(String(unavailable(f).hint)).toMatch(/retry|repeat/);
      }
      const stored = async () =>
        new Map(
          (
            await sql(
              "SELECT idempotency_key AS key, COUNT(*) AS n FROM messages WHERE idempotency_key LIKE 'restart-%' GROUP BY 1",
            )
          ).map((r) => [String(r.key), Number(r.n)]),
        );
      const landed = await stored();
      for (const a of attempted) {
        if (a.exitCode === 0) expect(landed.get(a.key), a.key).toBe(1);
        // A failure whose outcome is known: nothing was written. One lost in COMMIT says it may have been.
        else if ((JSON.parse(a.stderr).error as { outcome?: string }).outcome !== "unknown")
          expect(landed.get(a.key), a.key).toBeUndefined();
      }
      // The documented retry: the same key again delivers what failed, once, and repeats nothing.
      for (const f of failures) {
        const from = agents.find((a) => f.key.startsWith(`restart-${a.id}-`)) as Agent;
        const to = pairs.find((p) => p.from === from)?.to as Agent;
        await as(from, "agent-send-cli", ["--to", to.id, "--body", f.key, "--idempotency-key", f.key]);
      }
      const after = await stored();
      expect([...after.values()].filter((n) => n !== 1)).toEqual([]);
      expect(after.size).toBe(new Set(attempted.map((a) => a.key)).size);
      for (const { from, to } of pairs) {
        const inbox = await as<InboxJson>(to, "agent-inbox-cli", ["--limit", "100"]);
        const mine = inbox.messages.filter((m) => m.body.startsWith(`restart-${from.id}-`)).map((m) => m.body);
        expect(mine.sort()).toEqual(
          [...new Set(attempted.filter((a) => a.key.startsWith(`restart-${from.id}-`)).map((a) => a.key))].sort(),
        );
      }

      // Every worker reconnected by itself: each holds two of six new runs and finishes them.
      for (const w of workers.values()) expect(w.process.exitCode).toBeNull();
      const resumed = await heldRuns(agents[0] as Agent, 6);
      expect([...resumed.held.values()].map((ids) => ids.length)).toEqual([2, 2, 2]);
      resumed.release(resumed.runIds);
      await allSucceeded(resumed.runIds, "the runs after the restart");
    }, 180_000);

    test("host-local facts stay on their host: no pid, pane id, boot id or wake registration in the shared database", async () => {
      const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      const facts = [...hostLocal, bootId].filter((f) => f.length > 0);
      const columns = await sql(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'integer', 'bigint', 'jsonb', 'json')`,
      );
      const escaped = facts.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      const pattern = `(^|[^0-9A-Za-z])(${escaped.join("|")})([^0-9A-Za-z]|$)`;
      const found: string[] = [];
      for (const { table_name, column_name } of columns) {
        const rows = await sql(
          `SELECT DISTINCT substring("${String(column_name)}"::text from $1) AS fact FROM "${String(table_name)}"
           WHERE "${String(column_name)}"::text ~ $1`,
          [pattern],
        );
        for (const r of rows) found.push(`${String(table_name)}.${String(column_name)}: ${String(r.fact)}`);
      }
      expect(found).toEqual([]);
    });
  },
);

interface SendJson {
  id: string;
  recipients: { agent_id: string; outcome: string }[];
}
interface InboxJson {
  messages: { id: string; seq: number; from: string; body: string; kind: string }[];
}
interface DirectoryJson {
  agent_id: string;
  host: string;
  alive: boolean;
  liveness_evidence: string;
}
