// agent-task-cli through the real binaries on every store: auto-assignment at registration, the mesh notice, the state
// CAS between processes, exit codes. The routing and step rules themselves run in process:
// test/contract/task-rules-store.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { errorOf, identityEnv, json, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

interface Task {
  id: string;
  state: string;
  assignee: string | null;
  priority: string;
  version: number;
}

describe.each(storeNames)("agent-task-cli on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  const task = (sub: string, args: string[]) => json("agent-task-cli", [sub, ...args], env);
  const post = async (caps: string[], title = "t", priority = "normal", poster = "tk-lead"): Promise<Task> => {
    const r = await task("post", [
      "--agent-id",
      poster,
      "--title",
      title,
      "--body",
      "b",
      "--require-cap",
      caps.join(","),
      "--priority",
      priority,
    ]);
    if (r.exitCode !== 0) throw new Error(r.stderr);
    return r.json<{ task: Task }>().task;
  };
  /** Ends every session but the named agents', so routing in one test is not affected by agents of another. */
  const onlyLive = (...names: string[]) =>
    target.sql(
      `UPDATE sessions SET expires_at = 1 WHERE ended_at IS NULL AND agent_name NOT IN (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
      names,
    );
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target);
    await registered(env, "tk-lead", { caps: ["plan", "ts"] });
  });
  afterAll(() => target.dispose());

  test("an agent whose session expired is not live and gets nothing; a queued task goes to the next capable registrant", async () => {
    await registered(env, "tk-gone", { caps: ["rust"] });
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["tk-gone"]);
    const low = await post(["rust"], "low one", "low");
    const urgent = await post(["rust"], "urgent one", "urgent");
    expect([low.state, urgent.state]).toEqual(["queued", "queued"]);
    const r = await registered(env, "tk-rust", { caps: ["rust", "ts"] });
    expect(r.auto_assigned_tasks).toEqual([
      { task_id: urgent.id, title: "urgent one", priority: "urgent" },
      { task_id: low.id, title: "low one", priority: "low" },
    ]);
    const inbox = await json("agent-inbox-cli", ["--agent-id", "tk-rust"], env);
    const notices = inbox.json<{ messages: { from: string; kind: string; thread_id: string; body: string }[] }>().messages;
    expect(notices.map((m) => [m.from, m.kind, m.thread_id])).toEqual([
      ["agent-computer", "event", urgent.id],
      ["agent-computer", "event", low.id],
    ]);
    expect(notices[0]?.body).toContain(`agent-task-cli accept --agent-id tk-rust --task-id ${urgent.id},`);
  });

  test("the assignee is messaged on assignment at post time", async () => {
    await registered(env, "tk-notified", { caps: ["go"] });
    const t = await post(["go"], "go task");
    expect(t.assignee).toBe("tk-notified");
    const inbox = await json("agent-inbox-cli", ["--agent-id", "tk-notified"], env);
    expect(inbox.json<{ messages: { thread_id: string }[] }>().messages.map((m) => m.thread_id)).toContain(t.id);
  });

  test("accept → complete by the assignee through the binary; a wrong party exits 4, an unknown task 5", async () => {
    await registered(env, "tk-doer", { caps: ["doc"] });
    await registered(env, "tk-bystander", { caps: ["doc"] });
    await onlyLive("tk-lead", "tk-doer");
    const t = await post(["doc"], "write docs");
    expect(t.assignee).toBe("tk-doer");
    const id = ["--task-id", t.id];
    const byOther = await task("accept", ["--agent-id", "tk-bystander", ...id]);
    expect(byOther.exitCode).toBe(4);
    expect(errorOf(byOther)).toMatchObject({ code: "CONFLICT", state: "assigned" });
    expect((await task("accept", ["--agent-id", "tk-doer", ...id])).json()).toMatchObject({ state: "accepted" });
    const done = await task("complete", ["--agent-id", "tk-doer", ...id, "--result", "see PR 7"]);
    expect(done.json()).toMatchObject({ state: "completed", result: "see PR 7" });
    const missing = await task("accept", ["--agent-id", "tk-doer", "--task-id", `task_${"0".repeat(32)}`]);
    expect(missing.exitCode).toBe(5);
    expect(errorOf(missing).code).toBe("NOT_FOUND");
  });

  test("reject tells the poster; cancel is the poster's and tells the assignee", async () => {
    await registered(env, "tk-picky", { caps: ["css"] });
    await onlyLive("tk-lead", "tk-picky");
    const rejected = await post(["css"], "restyle");
    expect(
      (await task("reject", ["--agent-id", "tk-picky", "--task-id", rejected.id, "--reason", "not mine"])).json(),
    ).toMatchObject({
      state: "rejected",
      reason: "not mine",
    });
    const cancelled = await post(["css"], "recolour");
    expect(errorOf(await task("cancel", ["--agent-id", "tk-picky", "--task-id", cancelled.id])).code).toBe("CONFLICT");
    expect((await task("cancel", ["--agent-id", "tk-lead", "--task-id", cancelled.id, "--reason", "moot"])).json()).toMatchObject(
      {
        state: "cancelled",
      },
    );
    const inbox = await json("agent-inbox-cli", ["--agent-id", "tk-picky"], env);
    expect(inbox.json<{ messages: { body: string }[] }>().messages.map((m) => m.body)).toContain(
      `Task ${cancelled.id} (recolour) is now cancelled by tk-lead: moot`,
    );
    const queued = await post(["cobol"], "never routed");
    expect((await task("cancel", ["--agent-id", "tk-lead", "--task-id", queued.id])).json()).toMatchObject({
      state: "cancelled",
    });
  });

  test("racing complete and cancel from separate processes: exactly one wins, the other gets CONFLICT", async () => {
    await registered(env, "tk-racer", { caps: ["race"] });
    await onlyLive("tk-lead", "tk-racer");
    for (let round = 0; round < 5; round++) {
      const t = await post(["race"], `race ${round}`);
      await task("accept", ["--agent-id", "tk-racer", "--task-id", t.id]);
      const [complete, cancel] = await Promise.all([
        task("complete", ["--agent-id", "tk-racer", "--task-id", t.id]),
        task("cancel", ["--agent-id", "tk-lead", "--task-id", t.id]),
      ]);
      expect([complete.exitCode, cancel.exitCode].sort()).toEqual([0, 4]);
      const loser = complete.exitCode === 0 ? cancel : complete;
      expect(errorOf(loser).code).toBe("CONFLICT");
      const [row] = await target.sql("SELECT state, version FROM tasks WHERE id = $1", [t.id]);
      expect(row?.state).toBe(complete.exitCode === 0 ? "completed" : "cancelled");
      expect(Number(row?.version)).toBe(4);
    }
  });

  test("list shows mine by default, everything with --scope all, filtered by state", async () => {
    const mine = await task("list", ["--agent-id", "tk-racer", "--state", "completed", "--state", "cancelled"]);
    const tasks = mine.json<{ tasks: Task[] }>().tasks;
    expect(tasks).toHaveLength(5);
    expect(tasks.every((t) => t.assignee === "tk-racer")).toBe(true);
    const all = await task("list", ["--agent-id", "tk-racer", "--scope", "all", "--limit", "200"]);
    expect(all.json<{ tasks: Task[] }>().tasks.length).toBeGreaterThan(tasks.length);
  });

  test("the first check-in of a capable name takes queued tasks too", async () => {
    const queued = await post(["haskell"], "monads");
    const r = await json("agent-checkin-cli", ["--agent-id", "tk-checkin", "--caps", "haskell", "--confirm"], env);
    expect(r.json()).toMatchObject({ auto_assigned_tasks: [{ task_id: queued.id, title: "monads", priority: "normal" }] });
  });
});
