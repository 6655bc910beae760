// Automation jobs through the real binaries on the embedded store: the documented lifecycle, terminal script
// failures (never retried), the environment an attempt gets, edits taking effect, a vanished directory.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, createJob, jobDir, owner, scratchDir, showRuns, workerOnce } from "../helpers/automation.ts";
import { repoRoot, runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;

const manualRun = (jobId: string, data?: unknown) =>
  cli<{ run_id: string; live_workers: number; note?: string }>(
    env,
    alice,
    "run-automation-job-cli",
    ["--id", jobId, ...(data === undefined ? [] : ["--data-file", "-"])],
    { input: data === undefined ? undefined : JSON.stringify(data) },
  );

const inboxEvents = async () =>
  (
    await cli<{ messages: { kind: string; from: string; body: string }[] }>(env, alice, "agent-inbox-cli", ["--limit", "100"])
  ).messages
    .filter((m) => m.kind === "event")
    .map((m) => ({ from: m.from, ...JSON.parse(m.body) }));

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  env = automationEnv(target);
  alice = await owner(env, "alice");
});
afterAll(async () => target?.dispose());

describe("automation jobs, end to end [sqlite]", () => {
  test("register, test-trigger, run: the script sees the CloudEvent and its emitEvent lands in the owner's inbox", async () => {
    const dir = jobDir(`import { context, emitEvent } from "agent-computer/automation";
const { event, run } = context();
console.log("type", event.type, "attempt", run.attempt);
await emitEvent({ doubled: (event.data as { n: number }).n * 2, event_id: event.id });`);
    const created = await cli<{ id: string; entry: string; try_by_hand: string }>(env, alice, "create-automation-job-cli", [
      "--dir",
      dir,
      "--label",
      "doubler",
    ]);
    expect(created.entry).toBe(join(dir, "main.ts"));
    expect((await cli<{ jobs: { id: string }[] }>(env, alice, "list-automation-jobs-cli", [])).jobs.map((j) => j.id)).toContain(
      created.id,
    );
    const started = await manualRun(created.id, { n: 21 });
    expect(started).toMatchObject({ live_workers: 0, note: expect.stringContaining("no agent-computer-worker") });
    await workerOnce(env);
    const [run] = await showRuns(env, alice, created.id);
    expect(run).toMatchObject({
      id: started.run_id,
      state: "succeeded",
      attempt: 1,
      exit_code: 0,
      emitted_count: 1,
      trigger_kind: "manual",
    });
    expect(run?.stdout_tail).toContain("type automation_job.test attempt 1");
    const emitted = (await inboxEvents()).find((e) => e.type === "automation_job.emitted" && e.subject === started.run_id);
    expect(emitted).toMatchObject({
      from: "agent-computer",
      specversion: "1.0",
      source: `/agent-computer/automation-jobs/${created.id}`,
      datacontenttype: "application/json",
      data: { doubled: 42, event_id: started.run_id },
    });
    expect(typeof emitted?.time).toBe("string");
  });

  test("by hand, with the printed try_by_hand command, the SDK throws a clear error and other branches run", async () => {
    const dir = jobDir(`import { context } from "agent-computer/automation";
console.log("setup ok");
try { context(); } catch (error) { console.log((error as Error).name, (error as Error).message); }`);
    const created = await cli<{ try_by_hand: string }>(env, alice, "create-automation-job-cli", [
      "--dir",
      dir,
      "--label",
      "by hand",
    ]);
    // No bun on PATH: the printed command names this installation's own Bun.
    const r = await execa("sh", ["-c", created.try_by_hand], { env: { PATH: "/usr/bin:/bin" }, extendEnv: false, reject: false });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("setup ok");
    expect(r.stdout).toContain("NotInAutomationRunError context() exists only inside an automation run");
  });

  test("exception, non-zero exit and timeout are terminal: recorded with exit code and tails, never retried", async () => {
    const out = scratchDir();
    const exception = await createJob(env, alice, jobDir('console.log("before"); throw new TypeError("boom at step 2");'), [
      "--wake-on-failure",
    ]);
    const exit = await createJob(env, alice, jobDir('console.log("partial"); console.error("bad input"); process.exit(3);'));
    const timeout = await createJob(
      env,
      alice,
      jobDir(`const child = Bun.spawn(["sleep", "300"]);
require("node:fs").writeFileSync(${JSON.stringify(join(out, "grandchild.pid"))}, String(child.pid));
console.log("waiting"); await Bun.sleep(60_000);`),
      ["--timeout-seconds", "1"],
    );
    for (const id of [exception, exit, timeout]) await manualRun(id);
    await workerOnce(env);
    const [e] = await showRuns(env, alice, exception);
    expect(e).toMatchObject({
      state: "failed",
      attempt: 1,
      error_kind: "exception",
      error: "uncaught TypeError: boom at step 2",
      exit_code: 1,
    });
    expect(e?.stdout_tail).toBe("before\n");
    expect(e?.stderr_tail).toContain("boom at step 2");
    const [x] = await showRuns(env, alice, exit);
    expect(x).toMatchObject({
      state: "failed",
      error_kind: "exit",
      error: "exited with code 3",
      exit_code: 3,
      stdout_tail: "partial\n",
      stderr_tail: "bad input\n",
    });
    const [t] = await showRuns(env, alice, timeout);
    expect(t).toMatchObject({ state: "failed", error_kind: "timeout", stdout_tail: "waiting\n" });
    expect(t?.error).toContain("timeout_seconds=1");
    const grandchild = Number(readFileSync(join(out, "grandchild.pid"), "utf8"));
    expect(existsSync(`/proc/${grandchild}`) && !readFileSync(`/proc/${grandchild}/stat`, "utf8").includes(") Z ")).toBe(false);
    // Nothing is retried: another worker pass starts no new attempt.
    await workerOnce(env);
    for (const id of [exception, exit, timeout]) {
      const [run] = await showRuns(env, alice, id);
      expect(run?.attempts?.length).toBe(1);
    }
    const failed = (await inboxEvents()).filter((ev) => ev.type === "automation_job.failed");
    expect(failed.map((ev) => ev.data.automation_job_id)).toEqual([exception]);
    expect(failed[0]?.data).toMatchObject({
      error_kind: "exception",
      exit_code: 1,
      stderr_tail: expect.stringContaining("boom"),
    });
  });

  test("an attempt's environment is built from scratch: WorkerEnv yes, the worker's own secrets no", async () => {
    const set = await cli<{ set: string[] }>(env, alice, "worker-env-cli set", ["--file", "-"], {
      input: "API_KEY=s3cr3t-value\n# comment\nREGION=eu\n",
    });
    expect(set.set).toEqual(["API_KEY", "REGION"]);
    const listed = await runBin("worker-env-cli", ["list", "--agent-id", alice.id, "--token-file", alice.tokenFile, "--json"], {
      env,
    });
    expect(listed.stdout).not.toContain("s3cr3t-value");
    expect(JSON.parse(listed.stdout).variables).toEqual([
      expect.objectContaining({ key: "API_KEY", value: "********", length: 12 }),
      expect.objectContaining({ key: "REGION", value: "********", length: 2 }),
    ]);
    const reserved = await runBin(
      "worker-env-cli",
      ["set", "--agent-id", alice.id, "--token-file", alice.tokenFile, "--file", "-"],
      { env, input: "PATH=/evil\n" },
    );
    expect(reserved.exitCode).toBe(2);
    const id = await createJob(
      env,
      alice,
      jobDir(`const config = JSON.parse(await Bun.file(process.env.MCPORTER_CONFIG!).text());
const mode = (require("node:fs").statSync(process.env.MCPORTER_CONFIG!).mode & 0o777).toString(8);
console.log(JSON.stringify({ keys: Object.keys(process.env).sort(), api: process.env.API_KEY, cwd: process.cwd(), mode, imports: config.imports,
  lifecycles: Object.values(config.mcpServers).map((s: any) => s.lifecycle) }));`),
    );
    await manualRun(id);
    await workerOnce({ ...env, WORKER_OWN_SECRET: "must-not-leak", RELAY_AGENT_TOKEN: "act_worker_token" });
    const [run] = await showRuns(env, alice, id);
    const seen = JSON.parse(run?.stdout_tail ?? "{}");
    expect(seen.api).toBe("s3cr3t-value");
    expect(seen.keys).toContain("REGION");
    for (const leaked of [
      "WORKER_OWN_SECRET",
      "RELAY_AGENT_TOKEN",
      "AGENT_COMPUTER_HOME",
      "AGENT_COMPUTER_DATABASE_URL",
      "AGENT_COMPUTER_SKILLS_DIR",
    ]) {
      expect(seen.keys).not.toContain(leaked);
    }
    expect(seen).toMatchObject({ mode: "600", imports: [], lifecycles: ["ephemeral"] });
    expect(statSync(seen.cwd).isDirectory()).toBe(true);
  });

  test("editing main.ts after registration changes the next run; a vanished directory fails the run clearly", async () => {
    const dir = jobDir('console.log("version one");');
    const id = await createJob(env, alice, dir);
    await manualRun(id);
    await workerOnce(env);
    writeFileSync(join(dir, "main.ts"), 'console.log("version two");');
    await manualRun(id);
    await workerOnce(env);
    expect((await showRuns(env, alice, id)).map((r) => r.stdout_tail)).toEqual(["version two\n", "version one\n"]);
    renameSync(dir, `${dir}-moved`);
    await manualRun(id);
    await workerOnce(env);
    const [latest] = await showRuns(env, alice, id);
    expect(latest).toMatchObject({
      state: "failed",
      error_kind: "job_dir_missing",
      error: expect.stringContaining("does not exist"),
    });
  });

  test("a checkback and a cron schedule without a job wake the owner; list and cancel manage them", async () => {
    const cb = await cli<{ id: string }>(env, alice, "create-checkback-cli", ["--in", "0s", "--note", "check the deploy"]);
    const cron = await cli<{ id: string; upcoming: string[] }>(env, alice, "create-cron-schedule-cli", [
      "--cron",
      "* * * * * *",
      "--label",
      "every second",
    ]);
    expect(cron.upcoming).toHaveLength(3);
    await Bun.sleep(1100);
    await workerOnce(env);
    const events = await inboxEvents();
    expect(events.find((e) => e.type === "checkback.due")?.data).toMatchObject({ checkback_id: cb.id, note: "check the deploy" });
    expect(events.find((e) => e.type === "cron.tick")?.data).toMatchObject({
      schedule_id: cron.id,
      label: "every second",
      // 0, or more when the worker started later than the next tick (the misfire policy counts them).
      skipped_ticks: expect.any(Number),
    });
    const active = (await cli<{ triggers: { id: string }[] }>(env, alice, "list-triggers-cli", [])).triggers.map((t) => t.id);
    expect(active).toContain(cron.id);
    expect(active).not.toContain(cb.id);
    await cli(env, alice, "cancel-trigger-cli", ["--id", cron.id]);
    const again = await cli<{ error: { code: string } }>(env, alice, "cancel-trigger-cli", ["--id", cron.id], { expectExit: 4 });
    expect(again.error.code).toBe("CONFLICT");
    const all = (await cli<{ triggers: { id: string; state: string }[] }>(env, alice, "list-triggers-cli", ["--all"])).triggers;
    expect(Object.fromEntries(all.map((t) => [t.id, t.state]))).toMatchObject({ [cb.id]: "consumed", [cron.id]: "cancelled" });
  });

  test("cancel previews what it would cancel and changes nothing; the command it prints cancels", async () => {
    const jobId = await createJob(env, alice, jobDir("console.log('never');"));
    const cb = await cli<{ id: string }>(env, alice, "create-checkback-cli", ["--in", "1h", "--job-id", jobId]);
    await manualRun(jobId);
    const preview = await runBin(
      "cancel-automation-job-cli",
      ["--agent-id", alice.id, "--token-file", alice.tokenFile, "--job-id", jobId],
      { env },
    );
    expect(preview.exitCode, preview.stderr).toBe(0);
    expect(preview.stdout).toContain(`PREVIEW (nothing changed; add --confirm to act): would cancel ${jobId}`);
    expect(preview.stdout).toContain(`triggers it would cancel: ${cb.id}`);
    expect(preview.stdout).toContain("queued runs it would cancel: 1");
    const command = `cancel-automation-job-cli --agent-id ${alice.id} --token-file ${alice.tokenFile} --job-id ${jobId} --confirm`;
    expect(preview.stdout).toContain(`to do it: ${command}`);
    expect((await cli<{ job: { state: string } }>(env, alice, "show-automation-job-cli", ["--job-id", jobId])).job.state).toBe(
      "active",
    );
    const pasted = await execa("bash", ["-c", `${command} --json`], {
      env: { ...env, PATH: `${join(repoRoot, "bin")}:${process.env.PATH}` },
      reject: false,
    });
    expect(pasted.exitCode, pasted.stderr).toBe(0);
    expect(JSON.parse(pasted.stdout)).toMatchObject({
      job: { state: "cancelled" },
      cancelled_triggers: [cb.id],
      cancelled_queued_runs: 1,
    });
  });

  test("bad input is refused with exit 2, names the flag, and writes nothing", async () => {
    const job = await createJob(env, alice, jobDir("1"));
    const empty = jobDir("1");
    const noMain = join(empty, "sub");
    mkdirSync(noMain);
    const cases: [string, string[], string, string?][] = [
      ["create-automation-job-cli", ["--dir", noMain, "--label", "x"], "--dir"],
      ["create-automation-job-cli", ["--dir", empty, "--label", "two\nlines"], "--label"],
      ["create-automation-job-cli", ["--dir", empty, "--label", "x", "--timeout-seconds", "0"], "--timeout-seconds"],
      ["create-checkback-cli", ["--in", "5m", "--at", "2030-01-01T00:00:00Z"], "--at"],
      ["create-checkback-cli", ["--in", "five minutes"], "--in"],
      ["create-checkback-cli", ["--at", "2030-01-01 09:00"], "--at"],
      ["create-checkback-cli", ["--at", "2020-01-01T00:00:00Z"], "--at"],
      ["create-checkback-cli", ["--in", "5m", "--automation-job-id", "job_nope"], "--automation-job-id"],
      ["create-cron-schedule-cli", ["--cron", "* * * *  "], "--cron"],
      ["create-cron-schedule-cli", ["--cron", "0 9 * * *", "--tz", "Mars/Olympus"], "--tz"],
      ["create-cron-schedule-cli", ["--cron", "0 9 * * *", "--misfire-window-seconds", "5"], "--misfire-window-seconds"],
      ["create-webhook-cli", ["--label", "x", "--provider", "gitlab"], "--provider"],
      ["create-webhook-cli", ["--label", "x", "--max-body-bytes", "99999999"], "--max-body-bytes"],
      ["run-automation-job-cli", ["--id", job, "--data-file", "-"], "--data-file", "{not json"],
      ["worker-env-cli set", ["--file", "-"], "--file", "lowercase ok=1\n"],
    ];
    const tables = ["automation_jobs", "automation_triggers", "automation_runs", "automation_worker_env"];
    const counts = async () =>
      Promise.all(tables.map(async (t) => Number((await target.sql(`SELECT COUNT(*) AS n FROM ${t}`))[0]?.n)));
    const before = await counts();
    for (const [name, args, flag, input] of cases) {
      const words = name.split(" ");
      const r = await runBin(
        words[0] as string,
        [...words.slice(1), "--agent-id", alice.id, "--token-file", alice.tokenFile, ...args],
        { env, input },
      );
      expect([name, args.join(" "), r.exitCode]).toEqual([name, args.join(" "), 2]);
      expect(r.stderr, `${name} ${args.join(" ")}`).toContain(flag);
    }
    expect(await counts()).toEqual(before);
    const worker = await runBin("agent-computer-worker", ["--port", "70000"], { env });
    expect(worker.exitCode).toBe(2);
    expect(worker.stderr).toContain("--port");
  });
});
