// run-automation-job-cli --wait-seconds reports the run's outcome in its exit status: a run that failed (or was
// cancelled) is RUN_FAILED, exit 4, with the run id and state in the error; a run that succeeded exits 0.
// In process against every store; a test worker claims and finishes the attempt through the domain.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import runJobCommand, { runJobOptionsSchema } from "../../app/agent_computer/src/cli/automation/run-automation-job-cli.ts";
import type { CommandContext } from "../../app/agent_computer/src/cli/kernel/command-context.ts";
import { invokeCommand } from "../../app/agent_computer/src/cli/kernel/composition-root.ts";
import { readLimited } from "../../app/agent_computer/src/cli/kernel/input.ts";
import { claimAttempts, finishAttempt } from "../../app/agent_computer/src/domain/automation/attempts.ts";
import { createJob } from "../../app/agent_computer/src/domain/automation/jobs.ts";
import { isAppError } from "../../app/agent_computer/src/errors.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("run-automation-job-cli --wait-seconds exit status [%s]", (storeName) => {
  let mesh: MeshAgents;
  let jobId: string;

  const ctx = (): CommandContext => ({
    env: { ...mesh.target.env, RELAY_AGENT_TOKEN: mesh.token("owner") },
    paths: resolvePaths(mesh.target.env),
    now: () => mesh.clock.now,
    store: async () => mesh.store,
    readInput: readLimited,
  });

  /** Plays the worker: claims the one queued run and ends it as `state`, as soon as it is there. */
  const finishNextRun = async (state: "succeeded" | "failed") => {
    for (;;) {
      const [claimed] = await claimAttempts(mesh.deps(), { workerId: "test-worker", leaseMs: 60_000, limit: 1, hinted: true });
      if (claimed) {
        const failed = state === "failed";
        await finishAttempt(mesh.deps(), claimed.fence, {
          state,
          exitCode: failed ? 3 : 0,
          signal: null,
          errorKind: failed ? "exit_code" : null,
          error: failed ? "main.ts exited with code 3" : null,
          stdoutTail: "",
          stderrTail: failed ? "boom" : "",
          finishedAt: mesh.clock.now,
        });
        return claimed.run.id;
      }
      await Bun.sleep(20);
    }
  };
  const waitedRun = (state: "succeeded" | "failed") =>
    Promise.all([
      invokeCommand(runJobCommand, runJobOptionsSchema.parse({ agentId: "owner", jobId, waitSeconds: 60 }), ctx()).then(
        (result) => ({ result, error: undefined }),
        (error: unknown) => ({ result: undefined, error }),
      ),
      finishNextRun(state),
    ]);

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, Date.now());
    await mesh.join("owner", {});
    const dir = mkdtempSync(join(tmpdir(), "ac-job-"));
    writeFileSync(join(dir, "main.ts"), "process.exit(3);\n");
    jobId = (
      await createJob(mesh.deps(), {
        agentId: "owner",
        token: mesh.token("owner"),
        dir,
        label: "l",
        wakeOnFailure: false,
        timeoutSeconds: 60,
      })
    ).id;
  });
  afterAll(async () => mesh?.close());

  test("a run that failed is RUN_FAILED (exit 4) with the run id, state and run in the error", async () => {
    const [{ result, error }, runId] = await waitedRun("failed");
    expect(result).toBeUndefined();
    if (!isAppError(error)) throw new Error(`expected RUN_FAILED, got ${String(error)}`);
    expect(error.exitCode).toBe(4);
    expect(error.toJSON().error).toMatchObject({
      code: "RUN_FAILED",
      run_id: runId,
      state: "failed",
      run: { id: runId, state: "failed", exit_code: 3, error_kind: "exit_code" },
    });
    expect(error.message).toBe(`run ${runId} of ${jobId} ended failed (exit_code: main.ts exited with code 3), exit code 3`);
  });

  test("a run that succeeded is the result, exit 0", async () => {
    const [{ result, error }, runId] = await waitedRun("succeeded");
    expect(error).toBeUndefined();
    expect((result as { run?: unknown } | undefined)?.run).toMatchObject({ id: runId, state: "succeeded" });
  });
});
