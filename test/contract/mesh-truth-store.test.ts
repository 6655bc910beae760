// What a send tells its sender, against every store: a recipient proven dead by its pid is not reported live
// (the rule agents-list-cli and task routing use), an expired sender is told to check in, and an idempotency key
// reused for a different message is refused.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import { registerAgent } from "../../app/agent_computer/src/domain/agents/register.ts";
import type { Deps, LocalHost } from "../../app/agent_computer/src/domain/deps.ts";
import { listAgents } from "../../app/agent_computer/src/domain/mesh/directory.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import { ERROR_CODES } from "../../app/agent_computer/src/errors.ts";
import { memoryProcesses } from "../helpers/local-processes.ts";
import { type MeshAgents, type MeshClock, openMeshAgents } from "../helpers/mesh.ts";
import { type StoreTarget, storeNames } from "../helpers/stores.ts";

const HOST_ID = "host-truth";
const RECIPIENT_PID = 424_242;

describe.each(storeNames)("send outcomes tell the truth [%s]", (storeName) => {
  let mesh: MeshAgents;
  let target: StoreTarget;
  let clock: MeshClock;
  /** The processes this fake host runs: the recipient's pid until a test "kills" it. */
  const running = new Set<number>([RECIPIENT_PID]);
  const local: LocalHost = {
    hostId: HOST_ID,
    probe: (pid) => (running.has(pid) ? { exists: true, startTime: "777" } : { exists: false, startTime: null }),
    processes: memoryProcesses(),
    addresses: () => [],
  };
  const deps = (): Deps => ({ ...clock.deps(), local });

  const join = async (agentId: string, ttlSeconds = 3600) => {
    const r = await checkIn(deps(), { agentId, token: mesh.token(agentId), ttlSeconds });
    if (r.agent_token) mesh.remember(agentId, r.agent_token);
    return r;
  };
  const send = (from: string, to: string[], body: string, extra: { idempotencyKey?: string; threadId?: string } = {}) =>
    sendMessage(deps(), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: to }, body, ...extra });

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    ({ target, clock } = mesh);
    await join("sender");
    // The recipient registers its pid on this host: from then on its process is the evidence of its liveness.
    const first = await registerAgent(deps(), {
      agentId: "worker",
      role: "builder",
      capabilities: ["ts"],
      hostId: HOST_ID,
      agentPid: RECIPIENT_PID,
      agentPidStart: "777",
      token: undefined,
    });
    mesh.remember("worker", first.agent_token as string);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("a recipient whose registered process runs is live", async () => {
    const r = await send("sender", ["worker"], "hello");
    expect(r.recipients).toEqual([{ agent_id: "worker", outcome: "live", seq: expect.any(Number) }]);
  });

  test("a recipient whose registered process has exited is process_exited, as agents-list-cli and routing see it", async () => {
    running.delete(RECIPIENT_PID);
    try {
      const r = await send("sender", ["worker"], "are you there?");
      expect(r.recipients).toEqual([{ agent_id: "worker", outcome: "process_exited", seq: expect.any(Number) }]);
      // The message still waits in the recipient's open session: a check-in before it expires reads it.
      const stored = await target.sql("SELECT state, session_id FROM deliveries WHERE message_id = $1", [r.id]);
      expect(stored).toEqual([{ state: "pending", session_id: expect.any(String) }]);
      // The same verdict everywhere: the directory does not list it, routing does not pick it.
      const directory = await listAgents(deps(), { includeStale: false, token: undefined });
      expect(directory.agents.map((a) => a.agent_id)).not.toContain("worker");
      const task = await postTask(deps(), {
        agentId: "sender",
        token: mesh.token("sender"),
        title: "t",
        body: "b",
        requireCaps: ["ts"],
        priority: "normal",
      });
      expect(task.routed).toBe("queued");
      // A replay of a send made while it was dead reports the same outcome.
      const key = `dead-${storeName}`;
      await send("sender", ["worker"], "keyed", { idempotencyKey: key });
      const replay = await send("sender", ["worker"], "keyed", { idempotencyKey: key });
      expect(replay.replayed).toBe(true);
      expect(replay.recipients[0]?.outcome).toBe("process_exited");
    } finally {
      running.add(RECIPIENT_PID);
    }
  });

  test("a sender with a live session is told so, with no check-in command", async () => {
    const r = await send("sender", ["worker"], "fresh");
    expect(r.sender_session).toBe("live");
    expect(r).not.toHaveProperty("sender_checkin");
  });

  test("a sender whose own session expired is told so, with the check-in command to run", async () => {
    await join("brief", 60);
    clock.advance(61_000);
    const r = await send("brief", ["worker"], "late");
    expect(r.sender_session).toBe("expired");
    expect(r.sender_checkin).toBe("agent-checkin-cli --agent-id brief --confirm");
    // The send itself was not refused: the recipient gets it.
    expect(r.recipients[0]?.outcome).toBe("live");
    await join("brief", 60);
    expect((await send("brief", ["worker"], "back")).sender_session).toBe("live");
  });

  test("the same idempotency key with the same request replays; with another body or recipients it is refused", async () => {
    const key = `k-${storeName}`;
    const original = await send("sender", ["worker"], "body one", { idempotencyKey: key });
    const retry = await send("sender", ["worker"], "body one", { idempotencyKey: key });
    expect(retry).toMatchObject({ id: original.id, replayed: true });

    const count = async () => Number((await target.sql("SELECT COUNT(*) AS n FROM messages"))[0]?.n);
    const before = await count();
    for (const [to, body, threadId] of [
      [["worker"], "body two", undefined],
      [["worker", "sender"], "body one", undefined],
      [["worker"], "body one", "another-thread"],
    ] as const) {
      const attempt = send("sender", [...to], body, { idempotencyKey: key, ...(threadId ? { threadId } : {}) });
      await expect(attempt).rejects.toMatchObject({ code: "IDEMPOTENCY_CONFLICT", details: { message_id: original.id } });
    }
    expect(await count()).toBe(before);
    expect(ERROR_CODES.IDEMPOTENCY_CONFLICT.exit).toBe(4);
  });
});
