// The multi-host suite's automation scenarios: triggers fire once across three workers, a killed worker's run is
// rescued by another host (multi-host.test.ts).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { signStandard } from "../../app/agent_computer/src/domain/automation/webhook-verify.ts";
import { emitLate, jobDir, waitFor } from "../helpers/automation.ts";
import { type Agent, alive, as, type HostsUnderTest } from "../helpers/multi-host.ts";
import type { HostWorker } from "../helpers/netns-hosts.ts";

/** checkbacks, cron ticks and webhook deliveries fire exactly once across the three workers. */
export const triggersFireOnce = async (h: HostsUnderTest): Promise<void> => {
  const { workers, agents, sql } = h;
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
      const [done] = await sql("SELECT COUNT(*) AS n FROM automation_runs WHERE job_id = $1 AND state = 'succeeded'", [job.id]);
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
};

/** SIGKILL of one host's worker mid-run: another host's worker runs attempt 2; the lost attempt's late write is refused. */
export const killedWorkerRescued = async (h: HostsUnderTest): Promise<void> => {
  const { workers, agents, sql, startWorker, holderOf, runRow, heldJob } = h;
  const owner = agents[1] as Agent;
  const { out, job } = await heldJob(owner);
  const { run_id } = await as<{ run_id: string }>(owner, "run-automation-job-cli", ["--id", job.id]);
  await waitFor(async () => (existsSync(join(out, `${run_id}-1.pid`)) ? true : undefined), 30_000, "attempt 1 to start");
  const victim = await holderOf(run_id, 1);
  const victimWorker = workers.get(victim.name) as HostWorker;
  victimWorker.kill("SIGKILL");
  await victimWorker.process;
  const scriptPid = Number(readFileSync(join(out, `${run_id}-1.pid`), "utf8"));
  await waitFor(async () => (alive(scriptPid) ? undefined : true), 10_000, "the killed worker's script to die");

  await waitFor(async () => ((await runRow(run_id))?.state === "succeeded" ? true : undefined), 60_000, "attempt 2 to finish");
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
};
