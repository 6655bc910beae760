// What the console reads, on every store: every owner's jobs with their newest runs (WorkerEnv values cut out
// of output and errors) and every owner's triggers, without their secrets; the per-owner listings are unchanged.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claimAttempts, finishAttempt } from "../../app/agent_computer/src/domain/automation/attempts.ts";
import { createJob } from "../../app/agent_computer/src/domain/automation/jobs.ts";
import { startManualRun } from "../../app/agent_computer/src/domain/automation/manual-run.ts";
import { jobsOverview, triggersOverview } from "../../app/agent_computer/src/domain/automation/overview.ts";
import { cancelTrigger, createCheckback, createWebhook } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import { setWorkerEnv } from "../../app/agent_computer/src/domain/automation/worker-env.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { jobDir } from "../helpers/automation.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const T0 = Date.UTC(2026, 4, 1, 12);
const BASE = "http://127.0.0.1:8787";
const SECRET = "ghp_0123456789abcdefghij";

describe.each(storeNames)("console overview [%s]", (storeName) => {
  let mesh: MeshAgents;
  const owners: Record<string, { agentId: string; token: string }> = {};
  const jobs: Record<string, string> = {};
  let hookSecret = "";
  let cancelledId = "";
  const at = (now: number): Deps => ({ store: mesh.store, now: () => now, host: "test-host", newId });

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, T0);
    for (const [i, name] of ["alice", "bob"].entries()) {
      await mesh.join(name, { ttlSeconds: 86_400 });
      owners[name] = { agentId: name, token: mesh.token(name) as string };
      const dir = jobDir("console.log(1)");
      const created = await createJob(at(T0 + i), {
        ...owners[name],
        dir,
        label: `${name}'s job`,
        wakeOnFailure: false,
        timeoutSeconds: 60,
      });
      jobs[name] = created.id;
    }
    const alice = owners.alice as { agentId: string; token: string };
    await setWorkerEnv(at(T0), { ...alice, entries: [{ key: "GITHUB_TOKEN", value: SECRET }] });
    await startManualRun(at(T0 + 10), { ...alice, jobId: jobs.alice as string, data: null });
    const [attempt] = await claimAttempts(at(T0 + 20), { workerId: "w1", leaseMs: 10_000, limit: 10 });
    if (!attempt) throw new Error("no run claimed");
    await finishAttempt(at(T0 + 30), attempt.fence, {
      state: "failed",
      exitCode: 1,
      signal: null,
      errorKind: "exception",
      error: `uncaught Error: bad credentials ${SECRET}`,
      stdoutTail: `token=${SECRET}\n<done>`,
      stderrTail: "",
      finishedAt: T0 + 30,
    });
    hookSecret = (
      await createWebhook(at(T0 + 40), {
        ...alice,
        label: "hook",
        provider: "standard",
        maxBodyBytes: 1024,
        jobId: jobs.alice,
        baseUrl: BASE,
      })
    ).secret;
    const bob = owners.bob as { agentId: string; token: string };
    cancelledId = (await createCheckback(at(T0 + 50), { ...bob, dueAt: T0 + 3_600_000, note: "later", baseUrl: BASE })).id;
    await cancelTrigger(at(T0 + 60), { ...bob, id: cancelledId, baseUrl: BASE });
  });
  afterAll(async () => mesh?.close());

  test("every owner's jobs, newest first, each with its runs; WorkerEnv values cut out of output and errors", async () => {
    const overview = await jobsOverview(at(T0 + 100), { jobs: 50, runsPerJob: 5 });
    expect(overview.map((j) => [j.job.owner, j.job.label])).toEqual([
      ["bob", "bob's job"],
      ["alice", "alice's job"],
    ]);
    const [run] = overview[1]?.runs ?? [];
    expect(run).toMatchObject({ state: "failed", attempt: 1, exit_code: 1, error_kind: "exception" });
    expect(run?.stdout_tail).toBe("token=[WorkerEnv GITHUB_TOKEN]\n<done>");
    expect(run?.error).toBe("uncaught Error: bad credentials [WorkerEnv GITHUB_TOKEN]");
    expect(JSON.stringify(overview)).not.toContain(SECRET);
    expect(overview[0]?.runs).toEqual([]);
    expect((await jobsOverview(at(T0 + 100), { jobs: 1, runsPerJob: 5 })).map((j) => j.job.owner)).toEqual(["bob"]);
  });

  test("every owner's triggers with their owner, ended ones on request; no webhook secret", async () => {
    const all = await triggersOverview(at(T0 + 100), { limit: 200, includeEnded: true, baseUrl: BASE });
    expect(all.map((t) => [t.owner, t.kind, t.state])).toEqual([
      ["bob", "checkback", "cancelled"],
      ["alice", "webhook", "active"],
    ]);
    expect(JSON.stringify(all)).not.toContain(hookSecret);
    const active = await triggersOverview(at(T0 + 100), { limit: 200, includeEnded: false, baseUrl: BASE });
    expect(active.map((t) => t.owner)).toEqual(["alice"]);
  });

  test("the per-owner listings still list only that owner's", async () => {
    const rows = await mesh.store.read(async (tx) => ({
      jobs: await tx.automation.listJobs("alice", 50),
      triggers: await tx.automation.listTriggers("bob", true, 50),
      active: await tx.automation.listTriggers("bob", false, 50),
    }));
    expect(rows.jobs.map((j) => j.owner)).toEqual(["alice"]);
    expect(rows.triggers.map((t) => t.id)).toEqual([cancelledId]);
    expect(rows.active).toEqual([]);
  });
});
