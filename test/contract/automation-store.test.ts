// The automation contract, run against every store adapter: jobs, exactly-once trigger consumption (also with
// two workers' connections racing), cron across DST and after downtime, fenced attempts and their rescue.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claimAttempts,
  emitFromAttempt,
  FencedError,
  finishAttempt,
  heartbeatAttempt,
} from "../../app/agent_computer/src/domain/automation/attempts.ts";
import { consumeDueTriggers } from "../../app/agent_computer/src/domain/automation/due-triggers.ts";
import { cancelJob, createJob, previewCancelJob, showJob } from "../../app/agent_computer/src/domain/automation/jobs.ts";
import { startManualRun } from "../../app/agent_computer/src/domain/automation/manual-run.ts";
import { createCheckback, createCronSchedule, listTriggers } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import type { Fence, Store } from "../../app/agent_computer/src/store/port.ts";
import { AUTOMATION_CHANNEL } from "../../app/agent_computer/src/store/port.ts";
import { recordResult } from "../../app/agent_computer/src/worker/attempt-record.ts";
import { createLogger } from "../../app/agent_computer/src/worker/log.ts";
import { jobDir, waitFor } from "../helpers/automation.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const T0 = Date.UTC(2026, 10, 30, 12);
const HOUR = 3_600_000;
const BASE = "http://127.0.0.1:8787";
const done = {
  state: "succeeded" as const,
  exitCode: 0,
  signal: null,
  errorKind: null,
  error: null,
  stdoutTail: "",
  stderrTail: "",
};

describe.each(storeNames)("automation contract [%s]", (storeName) => {
  let mesh: MeshAgents;
  /** The mesh's store, and a second one: two workers' connections. */
  let store: Store;
  let second: Store;
  let alice: { agentId: string; token: string };
  const at = (now: number, s: Store = store): Deps => ({ store: s, now: () => now, host: "test-host", newId });
  const count = async (sql: string, params: unknown[] = []) => Number((await mesh.target.sql(sql, params))[0]?.n ?? 0);
  const job = async (extra: { wakeOnFailure?: boolean } = {}) =>
    (
      await createJob(at(T0), {
        ...alice,
        dir: jobDir("console.log(1)"),
        label: "j",
        wakeOnFailure: false,
        timeoutSeconds: 60,
        ...extra,
      })
    ).id;

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, T0);
    store = mesh.store;
    second = await mesh.target.open();
    for (const name of ["alice", "bob"]) await mesh.join(name, { ttlSeconds: 86_400 });
    alice = { agentId: "alice", token: mesh.token("alice") as string };
  });
  afterAll(async () => {
    await second?.close();
    await mesh?.close();
  });

  test("a job needs a real directory with main.ts and the owner's token; a refused call writes nothing", async () => {
    const before = await count("SELECT COUNT(*) AS n FROM automation_jobs");
    await expect(
      createJob(at(T0), { ...alice, token: "act_wrong", dir: jobDir("1"), label: "x", wakeOnFailure: false, timeoutSeconds: 5 }),
    ).rejects.toMatchObject({
      code: "AUTH_FAILED",
    });
    await expect(
      createJob(at(T0), { ...alice, dir: "/nonexistent/dir", label: "x", wakeOnFailure: false, timeoutSeconds: 5 }),
    ).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    expect(await count("SELECT COUNT(*) AS n FROM automation_jobs")).toBe(before);
  });

  test("a checkback fires exactly once when due, creating its run in the same transaction", async () => {
    const jobId = await job();
    const cb = await createCheckback(at(T0), { ...alice, dueAt: T0 + 60_000, jobId, baseUrl: BASE });
    expect((await consumeDueTriggers(at(T0 + 59_999), 50)).fired).toEqual([]);
    const first = await consumeDueTriggers(at(T0 + 60_000), 50);
    expect(first.fired).toEqual([{ triggerId: cb.id, result: { outcome: "run", runId: expect.stringMatching(/^run_/) } }]);
    expect((await consumeDueTriggers(at(T0 + 120_000), 50)).fired).toEqual([]);
    expect(await count("SELECT COUNT(*) AS n FROM automation_runs WHERE trigger_id = $1", [cb.id])).toBe(1);
    const run = (await showJob(at(T0), { ...alice, jobId, runs: 5, baseUrl: BASE })).runs[0];
    expect(run).toMatchObject({ state: "queued", trigger_kind: "checkback", trigger_id: cb.id });
  });

  test("two workers racing over 40 due checkbacks consume each exactly once", async () => {
    const jobId = await job();
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push((await createCheckback(at(T0), { ...alice, dueAt: T0 + 1000, jobId, baseUrl: BASE })).id);
    const drain = async (s: Store) => {
      let fired = 0;
      for (;;) {
        const scan = await consumeDueTriggers(at(T0 + 2000, s), 7);
        fired += scan.fired.length;
        if (scan.fired.length === 0 && !scan.more) return fired;
      }
    };
    const [a, b] = await Promise.all([drain(store), drain(second)]);
    expect(a + b).toBe(40);
    const rows = await mesh.target.sql(
      `SELECT trigger_id, COUNT(*) AS n FROM automation_runs WHERE trigger_id IN (${ids.map((_, i) => `$${i + 1}`).join(",")}) GROUP BY trigger_id`,
      ids,
    );
    expect(rows.length).toBe(40);
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
  });

  test("a trigger without a job wakes the owner with the CloudEvents envelope in the inbox", async () => {
    const cb = await createCheckback(at(T0), { ...alice, dueAt: T0 + 5000, note: "look at CI", baseUrl: BASE });
    const scan = await consumeDueTriggers(at(T0 + 5000), 50);
    expect(scan.fired).toContainEqual({
      triggerId: cb.id,
      result: expect.objectContaining({ outcome: "wake", delivered: true }),
    });
    const inbox = await readInbox(at(T0 + 6000), { ...alice, limit: 100 });
    const event = JSON.parse(inbox.messages.filter((m) => m.kind === "event").at(-1)?.body ?? "{}");
    expect(event).toMatchObject({
      specversion: "1.0",
      id: cb.id,
      type: "checkback.due",
      data: { checkback_id: cb.id, note: "look at CI" },
    });
  });

  test("cron in Europe/Berlin across spring-forward and fall-back: every real tick once, no repeats", async () => {
    const fire = async (expr: string, from: number, to: number) => {
      const s = await createCronSchedule(at(from), {
        ...alice,
        cron: expr,
        tz: "Europe/Berlin",
        misfireWindowSeconds: 3600,
        jobId: await job(),
        baseUrl: BASE,
      });
      const ticks: string[] = [];
      for (let now = from; now <= to; now += 15 * 60_000) {
        await consumeDueTriggers(at(now), 50);
      }
      for (const r of await mesh.target.sql(
        "SELECT scheduled_for FROM automation_firings WHERE trigger_id = $1 ORDER BY scheduled_for",
        [s.id],
      )) {
        ticks.push(new Date(Number(r.scheduled_for)).toISOString());
      }
      return ticks;
    };
    // 2026-03-29: 02:00 CET jumps to 03:00 CEST. Hourly: three real hours, three ticks; 02:30 fires once at 03:00 CEST.
    expect(await fire("0 * * * *", Date.parse("2026-03-28T23:30:00Z"), Date.parse("2026-03-29T02:30:00Z"))).toEqual([
      "2026-03-29T00:00:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T02:00:00.000Z",
    ]);
    expect(await fire("30 2 * * *", Date.parse("2026-03-28T23:30:00Z"), Date.parse("2026-03-29T03:00:00Z"))).toEqual([
      "2026-03-29T01:00:00.000Z",
    ]);
    // 2026-10-25: 03:00 CEST falls back to 02:00 CET. Hourly fires through both 02:00s; 02:30 fires once (the first).
    expect(await fire("0 * * * *", Date.parse("2026-10-24T23:30:00Z"), Date.parse("2026-10-25T02:30:00Z"))).toEqual([
      "2026-10-25T00:00:00.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T02:00:00.000Z",
    ]);
    expect(await fire("30 2 * * *", Date.parse("2026-10-24T23:30:00Z"), Date.parse("2026-10-25T03:00:00Z"))).toEqual([
      "2026-10-25T00:30:00.000Z",
    ]);
  });

  test("after downtime a schedule fires once for the latest tick in the window and counts the skipped ones", async () => {
    const start = Date.parse("2026-12-01T00:30:00Z");
    const s = await createCronSchedule(at(start), {
      ...alice,
      cron: "0 * * * *",
      tz: "UTC",
      misfireWindowSeconds: 600,
      jobId: await job(),
      baseUrl: BASE,
    });
    expect(s.next_fire_at).toBe("2026-12-01T01:00:00.000Z");
    await consumeDueTriggers(at(Date.parse("2026-12-01T04:05:00Z")), 50);
    const firings = await mesh.target.sql(
      "SELECT outcome, scheduled_for, skipped_ticks FROM automation_firings WHERE trigger_id = $1",
      [s.id],
    );
    expect(firings.map((f) => [f.outcome, new Date(Number(f.scheduled_for)).toISOString(), Number(f.skipped_ticks)])).toEqual([
      ["run", "2026-12-01T04:00:00.000Z", 3],
    ]);
    const run = await mesh.target.sql("SELECT event FROM automation_runs WHERE trigger_id = $1", [s.id]);
    expect(JSON.parse(String(run[0]?.event)).data).toMatchObject({ scheduled_for: "2026-12-01T04:00:00.000Z", skipped_ticks: 3 });
    // Down again, and even the latest missed tick (07:00) is older than the 600 s window: nothing fires.
    await consumeDueTriggers(at(Date.parse("2026-12-01T07:30:00Z")), 50);
    const view = (await listTriggers(at(start), { ...alice, includeEnded: false, limit: 500, baseUrl: BASE })).triggers.find(
      (t) => t.id === s.id,
    );
    expect(view).toMatchObject({ next_fire_at: "2026-12-01T08:00:00.000Z", fire_count: 1, skipped_count: 6 });
    expect(await count("SELECT COUNT(*) AS n FROM automation_firings WHERE trigger_id = $1 AND outcome = 'missed'", [s.id])).toBe(
      1,
    );
    expect(await count("SELECT COUNT(*) AS n FROM automation_runs WHERE trigger_id = $1", [s.id])).toBe(1);
  });

  test("attempts are fenced: a rescued run refuses the stale attempt's heartbeat, emit and result", async () => {
    const jobId = await job();
    const { run_id } = await startManualRun(at(T0), { ...alice, jobId, data: { n: 1 } });
    const claim = async (worker: string, now: number) => {
      const claimed = (await claimAttempts(at(now), { workerId: worker, leaseMs: 10_000, limit: 500 })).find(
        (c) => c.run.id === run_id,
      );
      if (!claimed) throw new Error(`${worker} did not claim ${run_id}`);
      return claimed;
    };
    const first = await claim("w1", T0);
    expect(first.fence.attempt).toBe(1);
    await expect(claim("w2", T0 + 5000)).rejects.toThrow("did not claim");
    expect(await heartbeatAttempt(at(T0 + 5000), first.fence, 10_000)).toBe(true);
    const second = await claim("w2", T0 + 15_001);
    expect(second.fence.attempt).toBe(2);
    expect(await heartbeatAttempt(at(T0 + 15_002), first.fence, 10_000)).toBe(false);
    await expect(emitFromAttempt(at(T0 + 15_002), first.fence, { late: true })).rejects.toBeInstanceOf(FencedError);
    expect(await finishAttempt(at(T0 + 15_003), first.fence, { ...done, finishedAt: T0 + 15_003 })).toBe(false);
    expect(await emitFromAttempt(at(T0 + 15_004), second.fence, { ok: true })).toMatchObject({ delivered: true });
    expect(await finishAttempt(at(T0 + 15_005), second.fence, { ...done, finishedAt: T0 + 15_005 })).toBe(true);
    const run = (await showJob(at(T0), { ...alice, jobId, runs: 1, baseUrl: BASE })).runs[0];
    expect(run).toMatchObject({ state: "succeeded", attempt: 2, emitted_count: 1 });
    expect(run?.attempts?.map((a) => [a.attempt, a.worker_id, a.outcome])).toEqual([
      [1, "w1", "lost"],
      [2, "w2", "succeeded"],
    ]);
  });

  test("NUL and lone surrogates in a result are stored as visible text, the same on every store", async () => {
    const jobId = await job();
    const { run_id } = await startManualRun(at(T0), { ...alice, jobId, data: null });
    const [claimed] = (await claimAttempts(at(T0), { workerId: "w1", leaseMs: 10_000, limit: 500 })).filter(
      (c) => c.run.id === run_id,
    );
    const outcome = {
      ...done,
      state: "failed" as const,
      exitCode: 1,
      errorKind: "exception",
      error: "uncaught Error: bad\0name",
      stdoutTail: "a\0b\n",
      stderrTail: "x\ud800y",
      finishedAt: T0 + 1,
    };
    expect(await finishAttempt(at(T0 + 1), claimed?.fence as Fence, outcome)).toBe(true);
    const run = (await showJob(at(T0), { ...alice, jobId, runs: 1, baseUrl: BASE })).runs[0];
    expect(run).toMatchObject({
      state: "failed",
      attempt: 1,
      stdout_tail: "a\\u0000b\n",
      stderr_tail: "x\ufffdy",
      error: "uncaught Error: bad\\u0000name",
    });
  });

  test("a result the store refuses still ends the run in one attempt, failed as result_unstorable", async () => {
    const jobId = await job();
    const { run_id } = await startManualRun(at(T0), { ...alice, jobId, data: null });
    const [claimed] = (await claimAttempts(at(T0), { workerId: "w1", leaseMs: 10_000, limit: 500 })).filter(
      (c) => c.run.id === run_id,
    );
    // A store that refuses this one result the way PostgreSQL refused NUL before it was escaped.
    const refusing: Store = {
      ...store,
      write: (fn) =>
        store.write((tx) =>
          fn({
            ...tx,
            automation: {
              ...tx.automation,
              finishRun: (f, o) =>
                o.stdoutTail.includes("REFUSE")
                  ? Promise.reject(new Error('invalid byte sequence for encoding "UTF8": 0x00'))
                  : tx.automation.finishRun(f, o),
            },
          }),
        ),
    };
    const lines: string[] = [];
    const recorded = await recordResult(
      at(T0 + 2, refusing),
      claimed?.fence as Fence,
      { ...done, stdoutTail: "REFUSE", finishedAt: T0 + 2 },
      createLogger((line) => lines.push(line)),
    );
    expect(recorded).toBe("stored_as_unstorable");
    const run = (await showJob(at(T0), { ...alice, jobId, runs: 1, baseUrl: BASE })).runs[0];
    expect(run).toMatchObject({ state: "failed", attempt: 1, error_kind: "result_unstorable", exit_code: 0, stdout_tail: "" });
    expect(run?.error).toContain("ended succeeded but the store refused its result: invalid byte sequence");
    expect(run?.attempts?.map((a) => a.outcome)).toEqual(["failed"]);
    expect(lines.join("")).toContain("result_unstorable");
    // Nothing is left to rescue: a later claim does not run it again.
    expect(
      (await claimAttempts(at(T0 + 60_000), { workerId: "w2", leaseMs: 10_000, limit: 500 })).map((c) => c.run.id),
    ).not.toContain(run_id);
  });

  test("a run whose worker is lost three times fails as worker_lost and wakes an owner who asked", async () => {
    const jobId = await job({ wakeOnFailure: true });
    const { run_id } = await startManualRun(at(T0), { ...alice, jobId, data: null });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = await claimAttempts(at(T0 + attempt * 20_000), { workerId: `w${attempt}`, leaseMs: 10_000, limit: 500 });
      expect(claimed.find((c) => c.run.id === run_id)?.fence.attempt).toBe(attempt);
    }
    await claimAttempts(at(T0 + 80_000), { workerId: "w4", leaseMs: 10_000, limit: 0 });
    const run = (await showJob(at(T0), { ...alice, jobId, runs: 1, baseUrl: BASE })).runs[0];
    expect(run).toMatchObject({ state: "failed", attempt: 3, error_kind: "worker_lost" });
    const inbox = await readInbox(at(T0 + 81_000), { ...alice, limit: 100 });
    const failed = inbox.messages
      .map((m) => JSON.parse(m.body))
      .find((e) => e.type === "automation_job.failed" && e.subject === run_id);
    expect(failed?.data).toMatchObject({ automation_job_id: jobId, error_kind: "worker_lost", attempt: 3 });
  });

  test("cancelling a job cancels its triggers and queued runs together; later calls conflict", async () => {
    const jobId = await job();
    const cb = await createCheckback(at(T0), { ...alice, dueAt: T0 + HOUR, jobId, baseUrl: BASE });
    await startManualRun(at(T0), { ...alice, jobId, data: null });
    const preview = await previewCancelJob(at(T0), { ...alice, jobId });
    expect(preview).toMatchObject({
      preview: true,
      cancelled_triggers: [cb.id],
      cancelled_queued_runs: 1,
      job: { state: "active" },
    });
    expect(await count("SELECT COUNT(*) AS n FROM automation_jobs WHERE id = $1 AND state = 'active'", [jobId])).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM automation_triggers WHERE id = $1 AND state = 'active'", [cb.id])).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM automation_runs WHERE job_id = $1 AND state = 'queued'", [jobId])).toBe(1);
    const cancelled = await cancelJob(at(T0), { ...alice, jobId });
    expect(cancelled).toMatchObject({ cancelled_triggers: [cb.id], cancelled_queued_runs: 1, job: { state: "cancelled" } });
    await expect(previewCancelJob(at(T0), { ...alice, jobId })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(cancelJob(at(T0), { ...alice, jobId })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(startManualRun(at(T0), { ...alice, jobId, data: null })).rejects.toMatchObject({ code: "CONFLICT" });
    expect((await consumeDueTriggers(at(T0 + 2 * HOUR), 50)).fired.map((f) => f.triggerId)).not.toContain(cb.id);
  });

  test("another agent's job is NOT_FOUND, for showing and for attaching triggers", async () => {
    await mesh.join("carol", {});
    const carol = { agentId: "carol", token: mesh.token("carol") as string };
    const jobId = await job();
    await expect(showJob(at(T0), { ...carol, jobId, runs: 1, baseUrl: BASE })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(createCheckback(at(T0), { ...carol, dueAt: T0 + 1, jobId, baseUrl: BASE })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  test.runIf(storeName === "postgres")("new work sends a NOTIFY hint to listening workers on commit", async () => {
    let hints = 0;
    const unlisten = await second.listen?.(AUTOMATION_CHANNEL, () => {
      hints += 1;
    });
    await waitFor(async () => (hints > 0 ? true : undefined), 5000, "the subscription");
    const before = hints;
    await startManualRun(at(T0), { ...alice, jobId: await job(), data: null });
    await waitFor(async () => (hints > before ? true : undefined), 5000, "the hint");
    await unlisten?.();
  });
});
