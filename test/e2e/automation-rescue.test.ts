// Worker loss and shutdown. A worker killed with SIGKILL mid-run takes its script with it (--no-orphans); the run
// finishes on another worker as attempt 2 and the stale attempt's late emitEvent is refused. SIGTERM drains;
// a second SIGTERM kills the attempt and releases the run for the next worker.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import {
  automationEnv,
  cli,
  createJob,
  emitLate,
  jobDir,
  logLines,
  owner,
  scratchDir,
  showRuns,
  startDaemon,
  waitFor,
  workerOnce,
} from "../helpers/automation.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

/** Attempt 1 leaves its credentials for the test and hangs; later attempts emit and end. */
const hangingFirstAttempt = (out: string) => `import { readFileSync, writeFileSync } from "node:fs";
import { context, emitEvent } from "agent-computer/automation";
const { run } = context();
writeFileSync(${JSON.stringify(out)} + "/attempt-" + run.attempt + ".json", readFileSync(process.env.AGENT_COMPUTER_ATTEMPT_FILE!));
writeFileSync(${JSON.stringify(out)} + "/attempt-" + run.attempt + ".pid", String(process.pid));
if (run.attempt === 1) await Bun.sleep(60_000);
await emitEvent({ finished_by_attempt: run.attempt });
`;

const alive = (pid: number): boolean => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");

describe.each(storeNames)("worker loss [%s]", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  let alice: TestAgent;

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = automationEnv(target);
    alice = await owner(env, "alice");
  });
  afterAll(async () => target?.dispose());

  test("SIGKILL mid-run: attempt 2 finishes on another worker; attempt 1's late emitEvent is refused", async () => {
    const out = scratchDir();
    const jobId = await createJob(env, alice, jobDir(hangingFirstAttempt(out)));
    const first = await startDaemon(env, ["--lease-seconds", "2"]);
    const { run_id } = await cli<{ run_id: string }>(env, alice, "run-automation-job-cli", ["--id", jobId]);
    await waitFor(async () => (existsSync(join(out, "attempt-1.pid")) ? true : undefined), 20_000, "attempt 1 to start");
    const scriptPid = Number(readFileSync(join(out, "attempt-1.pid"), "utf8"));
    first.process.kill("SIGKILL");
    await first.process;
    await waitFor(async () => (alive(scriptPid) ? undefined : true), 5000, "the orphaned script to die");

    const second = await startDaemon(env, ["--lease-seconds", "2"]);
    try {
      const run = await waitFor(
        async () => (await showRuns(env, alice, jobId)).find((r) => r.id === run_id && r.state === "succeeded"),
        20_000,
      );
      expect(run).toMatchObject({ attempt: 2, emitted_count: 1 });
      expect(run.attempts?.map((a) => [a.attempt, a.outcome])).toEqual([
        [1, "lost"],
        [2, "succeeded"],
      ]);
      expect(run.attempts?.[0]?.worker_id).not.toBe(run.attempts?.[1]?.worker_id);

      // The stale attempt speaks up late, through the SDK, to the surviving worker.
      const stale = JSON.parse(readFileSync(join(out, "attempt-1.json"), "utf8"));
      const staleFile = join(out, "stale-attempt.json");
      writeFileSync(staleFile, JSON.stringify({ ...stale, emit_url: `${second.url}/attempts/events` }));
      expect(await emitLate(staleFile)).toBe("AttemptFencedError");
      const inbox = await cli<{ messages: { body: string }[] }>(env, alice, "agent-inbox-cli", ["--limit", "100"]);
      const emitted = inbox.messages.map((m) => JSON.parse(m.body)).filter((e) => e.subject === run_id);
      expect(emitted.map((e) => e.data)).toEqual([{ finished_by_attempt: 2 }]);
    } finally {
      second.process.kill("SIGTERM");
      await second.process;
    }
  });
});

describe("two-stage shutdown [sqlite]", () => {
  let target: StoreTarget;
  let env: Record<string, string>;
  let alice: TestAgent;

  beforeAll(async () => {
    target = await createStoreTarget("sqlite");
    env = automationEnv(target);
    alice = await owner(env, "alice");
  });
  afterAll(async () => target?.dispose());

  test("the first SIGTERM lets the running attempt finish, then the worker ends by SIGTERM", async () => {
    const out = scratchDir();
    const jobId = await createJob(
      env,
      alice,
      jobDir(
        `require("node:fs").writeFileSync(${JSON.stringify(join(out, "started"))}, "1"); await Bun.sleep(1500); console.log("finished");`,
      ),
    );
    const worker = await startDaemon(env, ["--json"]);
    await cli(env, alice, "run-automation-job-cli", ["--id", jobId]);
    await waitFor(async () => (existsSync(join(out, "started")) ? true : undefined));
    worker.process.kill("SIGTERM");
    const ended = await worker.process;
    expect(ended.signal).toBe("SIGTERM");
    expect(JSON.parse(String(ended.stdout))).toMatchObject({ stopped_by: "SIGTERM", forced: false });
    expect(logLines(worker.stderr()).map((l) => l.msg)).toContain(
      "draining: no new work; running attempts may finish (signal again to stop now)",
    );
    const [run] = await showRuns(env, alice, jobId);
    expect(run).toMatchObject({ state: "succeeded", stdout_tail: "finished\n" });
  });

  test("a second SIGTERM kills the attempt and releases its run: the next worker finishes it as attempt 2", async () => {
    const out = scratchDir();
    const jobId = await createJob(env, alice, jobDir(hangingFirstAttempt(out)));
    const worker = await startDaemon(env, ["--json"]);
    await cli(env, alice, "run-automation-job-cli", ["--id", jobId]);
    await waitFor(async () => (existsSync(join(out, "attempt-1.pid")) ? true : undefined));
    worker.process.kill("SIGTERM");
    await waitFor(async () => (worker.stderr().includes("draining") ? true : undefined));
    worker.process.kill("SIGTERM");
    const ended = await worker.process;
    expect(JSON.parse(String(ended.stdout))).toMatchObject({ stopped_by: "SIGTERM", forced: true });
    expect(alive(Number(readFileSync(join(out, "attempt-1.pid"), "utf8")))).toBe(false);
    const [released] = await showRuns(env, alice, jobId);
    expect(released?.attempts?.map((a) => a.outcome)).toEqual(["released"]);
    await workerOnce(env);
    const [run] = await showRuns(env, alice, jobId);
    expect(run).toMatchObject({ state: "succeeded", attempt: 2 });
  });
});
