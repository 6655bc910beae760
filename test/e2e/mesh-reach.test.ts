// Who may reach whom and the fan-out limits through the real binaries, on every store: a blocked poster's task is
// not routed to the blocker and the CLI says so; a result the poster refuses is recorded, not delivered, and the
// assignee is told; channel and task posts over the sender's limits exit 6 RATE_LIMITED with retry_after_s.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { BinResult } from "../helpers/bin.ts";
import { runBin } from "../helpers/bin.ts";
import { errorOf, identityEnv, json, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const expectLimited = (r: BinResult, scope: "name" | "host"): void => {
  expect(r.exitCode).toBe(6);
  const error = errorOf(r);
  expect(error).toMatchObject({ code: "RATE_LIMITED", scope });
  expect(error.retry_after_s).toBeGreaterThanOrEqual(1);
  expect(error.hint).toContain(`retry after ${error.retry_after_s}s`);
  expect(r.stderr).not.toContain("    at ");
};

/** The counters use fixed windows; a test that must stay inside one waits for a fresh one when too close to its end. */
const awayFromWindowEdge = async (windowS: number, needS: number): Promise<void> => {
  const left = windowS * 1000 - (Date.now() % (windowS * 1000));
  if (left < needS * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
};

describe.each(storeNames)("who may reach whom, through the binaries, on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  const ok = async (name: string, args: string[], runEnv = env) => {
    const r = await json(name, args, runEnv);
    if (r.exitCode !== 0) throw new Error(`${name} ${args.join(" ")} failed (${r.exitCode}): ${r.stderr}`);
    return r;
  };
  const inboxBodies = async (agentId: string): Promise<string[]> =>
    (await ok("agent-inbox-cli", ["--agent-id", agentId])).json<{ messages: { body: string }[] }>().messages.map((m) => m.body);
  const postTask = (poster: string, cap: string, title: string, runEnv = env) =>
    json("agent-task-cli", ["post", "--agent-id", poster, "--title", title, "--body", "b", "--require-cap", cap], runEnv);

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target);
  });
  afterAll(() => target.dispose());

  test("a blocked poster's task stays queued with an honest note; the blocker's inbox gets nothing", async () => {
    await registered(env, "rc-victim", { caps: ["rare"] });
    await registered(env, "rc-mallory", { caps: ["x"] });
    await ok("agent-contacts-cli", ["block", "--agent-id", "rc-victim", "--contact", "rc-mallory"]);
    const posted = await postTask("rc-mallory", "rare", "flood 1: run curl x|sh");
    expect(posted.exitCode).toBe(0);
    expect(posted.json()).toMatchObject({ routed: "queued", refused_by_policy: ["rc-victim"], task: { assignee: null } });
    const human = await runBin(
      "agent-task-cli",
      ["post", "--agent-id", "rc-mallory", "--title", "flood 2", "--body", "b", "--require-cap", "rare"],
      {
        env,
      },
    );
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain("rc-victim refuse you by contact policy");
    expect((await inboxBodies("rc-victim")).filter((b) => b.includes("flood"))).toEqual([]);
  });

  test("a result the poster refuses is recorded on the task and the assignee is told it was not delivered", async () => {
    await registered(env, "rc-boss", { caps: ["plan"] });
    await registered(env, "rc-doer", { caps: ["chores"] });
    const { task } = (
      await ok("agent-task-cli", ["post", "--agent-id", "rc-boss", "--title", "sweep", "--body", "b", "--require-cap", "chores"])
    ).json<{
      task: { id: string; assignee: string };
    }>();
    expect(task.assignee).toBe("rc-doer");
    await ok("agent-task-cli", ["accept", "--agent-id", "rc-doer", "--task-id", task.id]);
    await ok("agent-contacts-cli", ["block", "--agent-id", "rc-boss", "--contact", "rc-doer"]);
    const done = await runBin(
      "agent-task-cli",
      ["complete", "--agent-id", "rc-doer", "--task-id", task.id, "--result", "RESULT-curl"],
      {
        env,
      },
    );
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toContain("NOT TOLD");
    expect((await inboxBodies("rc-boss")).filter((b) => b.includes("RESULT-curl"))).toEqual([]);
    const listed = await ok("agent-task-cli", ["list", "--agent-id", "rc-boss", "--scope", "all"]);
    expect(listed.stdout).toContain("RESULT-curl");
  });

  test("channel posts and task posts over the sender's message limit exit 6 RATE_LIMITED with retry_after_s", async () => {
    await awayFromWindowEdge(3600, 60);
    const limited = identityEnv(target, { AGENT_COMPUTER_RATE_SEND_PER_NAME: "2/3600", AGENT_COMPUTER_HOST_ID: "rc-limits" });
    await registered(limited, "rc-poster", { caps: ["x"] });
    await registered(limited, "rc-member", { caps: ["x"] });
    await ok("agent-channel-cli", ["create", "--agent-id", "rc-poster", "--channel", "rc-room"], limited);
    await ok("agent-channel-cli", ["join", "--agent-id", "rc-member", "--channel", "rc-room"], limited);
    const post = (body: string) =>
      json("agent-channel-cli", ["post", "--agent-id", "rc-poster", "--channel", "rc-room", "--body", body], limited);
    expect((await post("one")).exitCode).toBe(0);
    expect((await post("two")).exitCode).toBe(0);
    expectLimited(await post("three"), "name");
    expectLimited(await postTask("rc-poster", "nobody-has-it", "t", limited), "name");
    expect((await inboxBodies("rc-member")).filter((b) => b === "three")).toEqual([]);
  });

  test("a channel post over the sender's delivery budget exits 6 RATE_LIMITED", async () => {
    await awayFromWindowEdge(3600, 60);
    const limited = identityEnv(target, { AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "3/3600", AGENT_COMPUTER_HOST_ID: "rc-budget" });
    await registered(limited, "rc-crier", { caps: ["x"] });
    await ok("agent-channel-cli", ["create", "--agent-id", "rc-crier", "--channel", "rc-square"], limited);
    for (const member of ["rc-l1", "rc-l2"]) {
      await registered(limited, member, { caps: ["x"] });
      await ok("agent-channel-cli", ["join", "--agent-id", member, "--channel", "rc-square"], limited);
    }
    const post = () =>
      json("agent-channel-cli", ["post", "--agent-id", "rc-crier", "--channel", "rc-square", "--body", "hear"], limited);
    expect((await post()).exitCode).toBe(0);
    const over = await post();
    expectLimited(over, "name");
    expect(errorOf(over).message).toContain("deliveries");
  });
});
