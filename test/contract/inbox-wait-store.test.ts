// waitForInbox on every store, with a clock the test moves: a long wait keeps the session's presence alive (it
// is renewed every WAIT_RENEW_MS of that clock, so the session never reaches its ttl), and a send ends the wait.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ackMessages } from "../../app/agent_computer/src/domain/mesh/ack.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { WAIT_RENEW_MS, waitForInbox } from "../../app/agent_computer/src/domain/mesh/inbox-wait.ts";
import { peekInbox } from "../../app/agent_computer/src/domain/mesh/peek.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("inbox wait [%s]", (storeName) => {
  let mesh: MeshAgents;

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    await mesh.join("sender");
    await mesh.join("waiter");
  });
  afterAll(async () => mesh?.close());

  test("while it waits, presence is renewed by the clock's passing; a send ends the wait with the message", async () => {
    const started = mesh.clock.now;
    const activity = async () =>
      Number(
        (await mesh.target.sql("SELECT last_activity_at AS t FROM sessions WHERE agent_name = 'waiter' AND ended_at IS NULL"))[0]
          ?.t,
      );
    expect(await activity()).toBeLessThanOrEqual(started);
    const waiting = waitForInbox(mesh.deps(), { agentId: "waiter", token: mesh.token("waiter"), limit: 10, waitSeconds: 3600 });
    // Time passes three renewal intervals, in steps the waiter looks at (its slow poll is at most 2 s of real time).
    for (let step = 0; step < 3; step++) {
      mesh.clock.advance(WAIT_RENEW_MS + 1000);
      const due = mesh.clock.now - 1000;
      const until = Date.now() + 10_000;
      while ((await activity()) < due && Date.now() < until) await Bun.sleep(100);
      expect(await activity()).toBeGreaterThanOrEqual(due);
    }
    await sendMessage(mesh.deps(), {
      from: "sender",
      token: mesh.token("sender"),
      recipients: { kind: "to", agentIds: ["waiter"] },
      body: "wake up",
    });
    const result = await waiting;
    expect(result.messages.map((m) => m.body)).toEqual(["wake up"]);
  }, 60_000);

  test("a wait that runs out fails with TIMEOUT and leaves the inbox as it was", async () => {
    const token = mesh.token("waiter");
    const { messages } = await readInbox(mesh.deps(), { agentId: "waiter", token, limit: 10 });
    await ackMessages(mesh.deps(), { agentId: "waiter", token, upToSeq: messages.at(-1)?.seq ?? 0 });
    // A live clock that starts where the test's clock stands.
    const base = mesh.clock.now;
    const startedAt = Date.now();
    const deps = { ...mesh.deps(), now: () => base + (Date.now() - startedAt) };
    const error = await waitForInbox(deps, { agentId: "waiter", token, limit: 10, waitSeconds: 1 }).then(
      () => undefined,
      (e: { code?: string }) => e,
    );
    expect(error?.code).toBe("TIMEOUT");
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect((await peekInbox(mesh.deps(), { agentId: "waiter", token })).count).toBe(0);
  });
});
