// The worker's scheduler judges due times on the store's clock (deps.now), never on the host's: on a host whose clock
// is 5 minutes behind the PostgreSQL server's, a checkback due a second ago on the server's clock fires now, not
// 5 minutes late.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createCheckback } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import { createLogger } from "../../app/agent_computer/src/worker/log.ts";
import { Nudge } from "../../app/agent_computer/src/worker/nudge.ts";
import { schedulerService } from "../../app/agent_computer/src/worker/scheduler.ts";
import type { WorkerContext } from "../../app/agent_computer/src/worker/worker-context.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";
import { pollUntil } from "../helpers/wait.ts";

const HOST_BEHIND_MS = 5 * 60_000;

describe.each(storeNames)("the scheduler on a host whose clock is behind the store's [%s]", (storeName) => {
  let mesh: MeshAgents;
  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, Date.now());
    await mesh.join("owner");
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("fires a checkback due on the store's clock at once", async () => {
    // The worker's deps as the composition root builds them: host time plus the measured offset.
    const deps = { ...mesh.deps(), now: () => Date.now() + HOST_BEHIND_MS };
    const dueAt = deps.now() - 1000;
    await createCheckback(deps, { agentId: "owner", token: mesh.token("owner"), dueAt, baseUrl: "http://127.0.0.1:1" });
    const ctx = {
      deps,
      options: { pollMs: 50 },
      log: createLogger(() => {}),
      nudge: { scheduler: new Nudge(), executor: new Nudge() },
    } as unknown as WorkerContext;
    const scheduler = schedulerService(ctx);
    scheduler.start();
    try {
      const fired = async () => ((await mesh.count("SELECT COUNT(*) AS n FROM automation_firings")) > 0 ? true : undefined);
      await pollUntil(fired, { timeoutMs: 3000, stepMs: 25, what: "the checkback to fire" });
    } finally {
      await scheduler.drain();
    }
    expect(await mesh.count("SELECT COUNT(*) AS n FROM automation_firings")).toBe(1);
  });
});
