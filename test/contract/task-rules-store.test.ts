// The task rules in process, on every store: routing to the least-loaded live capable agent (ties to the most recently
// seen, never the poster, every required capability) or the queue, and who may take which step, with the notices the
// steps send. The binaries' side (flags, exit codes, races between processes) stays in test/e2e/agent-task.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import { type TaskAction, transitionTask } from "../../app/agent_computer/src/domain/tasks/transition.ts";
import { AppError } from "../../app/agent_computer/src/errors.ts";
import { type MeshAgents, type MeshClock, openMeshAgents } from "../helpers/mesh.ts";
import { type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("task rules in process [%s]", (storeName) => {
  let mesh: MeshAgents;
  let target: StoreTarget;
  let clock: MeshClock;

  const register = (name: string, capabilities: string[]) => {
    clock.advance(1_000);
    return mesh.register(name, capabilities);
  };
  const post = (requireCaps: string[], title = "t", poster = "lead") =>
    postTask(clock.deps(), { agentId: poster, token: mesh.token(poster), title, body: "b", requireCaps, priority: "normal" });
  const step = (action: TaskAction, agentId: string, taskId: string, text?: string) =>
    transitionTask(clock.deps(), { action, agentId, token: mesh.token(agentId), taskId, text });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof AppError ? { code: error.code, ...error.details } : error),
    );
  /** Ends every session but the named agents', so one test's routing is not affected by another's agents. */
  const onlyLive = (...names: string[]) =>
    target.sql(
      `UPDATE sessions SET expires_at = 1 WHERE ended_at IS NULL AND agent_name NOT IN (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
      names,
    );

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, Date.now());
    ({ target, clock } = mesh);
    await register("lead", ["plan", "ts"]);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("least loaded first, ties to the most recently seen; never the poster; all required caps needed", async () => {
    await register("w1", ["ts"]);
    await register("w2", ["ts", "sql"]);
    await onlyLive("lead", "w1", "w2");
    // Both idle: w2 registered last, so it was seen most recently.
    expect((await post(["ts"])).task.assignee).toBe("w2");
    expect((await post(["ts"])).task.assignee).toBe("w1");
    // One each now; w1 reads its inbox and becomes the most recently seen.
    clock.advance(1_000);
    await readInbox(clock.deps(), { agentId: "w1", token: mesh.token("w1"), limit: 10 });
    expect((await post(["ts"])).task.assignee).toBe("w1");
    expect((await post(["ts", "sql"])).task.assignee).toBe("w2");
    const planned = await post(["plan"]);
    expect([planned.routed, planned.task.state, planned.task.assignee]).toEqual(["queued", "queued", null]);
  });

  test("only the assignee accepts and completes, in order; the poster hears of each step; unknown tasks are NOT_FOUND", async () => {
    await register("doer", ["doc"]);
    await register("bystander", ["doc"]);
    await onlyLive("lead", "doer");
    const { task } = await post(["doc"], "write docs");
    expect(task.assignee).toBe("doer");
    expect(await refusal(step("accept", "bystander", task.id))).toMatchObject({ code: "CONFLICT", state: "assigned" });
    expect(await refusal(step("complete", "doer", task.id))).toMatchObject({ code: "CONFLICT", state: "assigned" });
    expect(await step("accept", "doer", task.id)).toMatchObject({ state: "accepted" });
    expect(await refusal(step("accept", "doer", task.id))).toMatchObject({ code: "CONFLICT" });
    expect(await step("complete", "doer", task.id, "see PR 7")).toMatchObject({ state: "completed", result: "see PR 7" });
    expect(await refusal(step("cancel", "lead", task.id))).toMatchObject({ code: "CONFLICT" });
    expect(await refusal(step("accept", "doer", `task_${"0".repeat(32)}`))).toMatchObject({ code: "NOT_FOUND" });
    const inbox = await readInbox(clock.deps(), { agentId: "lead", token: mesh.token("lead"), limit: 100 });
    expect(inbox.messages.filter((m) => m.thread_id === task.id).map((m) => m.body)).toEqual([
      `Task ${task.id} (write docs) is now accepted by doer`,
      `Task ${task.id} (write docs) is now completed by doer: see PR 7`,
    ]);
  });
});
