// Per-agent caps under concurrent writers, on each store: the webhook endpoint cap and the WorkerEnv entry cap are
// counted and written under the owner's agent row, so writers racing through stores of their own (as separate
// processes would) never end one past the cap. Each round uses a fresh owner, so every round is a new race.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MAX_ENTRIES, setWorkerEnv } from "../../app/agent_computer/src/domain/automation/worker-env.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { addEndpoint, MAX_ENDPOINTS_PER_AGENT } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const ROUNDS = 6;
const WRITERS = 20;

describe.each(storeNames)("per-agent caps under racing writers [%s]", (storeName) => {
  let mesh: MeshAgents;
  let writers: Store[] = [];
  const depsOf = (store: Store): Deps => ({ store, now: () => Date.now(), host: "test-host", newId });

  const register = async (agentId: string): Promise<string> =>
    (await mesh.join(agentId, { ttlSeconds: 86_400 })).agent_token as string;

  /** Each writer on a store of its own; returns what each call threw (undefined when it succeeded). */
  const race = async (call: (store: Store, i: number) => Promise<unknown>): Promise<unknown[]> =>
    (await Promise.allSettled(writers.map((store, i) => call(store, i)))).map((r) =>
      r.status === "rejected" ? r.reason : undefined,
    );

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, Date.now());
    writers = await Promise.all(Array.from({ length: WRITERS }, () => mesh.target.open()));
  });
  afterAll(async () => {
    await Promise.all(writers.map((s) => s.close()));
    await mesh?.close();
  });

  test(`${WRITERS} concurrent adds of a webhook endpoint keep exactly ${MAX_ENDPOINTS_PER_AGENT}, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owner = `hooks-${round}`;
      const token = await register(owner);
      const errors = await race((store, i) =>
        addEndpoint(depsOf(store), {
          agentId: owner,
          token,
          url: `https://hooks.example.com/${owner}/${i}`,
          events: ["message"],
          allowPrivate: false,
        }),
      );
      const refused = errors.filter((e) => e !== undefined);
      expect(refused.length).toBe(WRITERS - MAX_ENDPOINTS_PER_AGENT);
      for (const e of refused) expect((e as { code?: string }).code).toBe("CONFLICT");
      const [row] = await mesh.target.sql("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE owner = $1", [owner]);
      expect(Number(row?.n)).toBe(MAX_ENDPOINTS_PER_AGENT);
    }
  });

  test(`${WRITERS} concurrent adds through one store (batched together) keep exactly ${MAX_ENDPOINTS_PER_AGENT}`, async () => {
    const owner = "hooks-one-store";
    const token = await register(owner);
    const results = await Promise.allSettled(
      writers.map((_, i) =>
        addEndpoint(depsOf(mesh.store), {
          agentId: owner,
          token,
          url: `https://hooks.example.com/${owner}/${i}`,
          events: ["message"],
          allowPrivate: false,
        }),
      ),
    );
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(WRITERS - MAX_ENDPOINTS_PER_AGENT);
    const [row] = await mesh.target.sql("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE owner = $1", [owner]);
    expect(Number(row?.n)).toBe(MAX_ENDPOINTS_PER_AGENT);
  });

  test(`concurrent WorkerEnv sets never keep more than ${MAX_ENTRIES} variables, ${ROUNDS} rounds`, async () => {
    // Each writer sets keys of its own: the first three fit (60 each), every later one would pass the cap.
    const perWriter = 60;
    const fit = Math.floor(MAX_ENTRIES / perWriter);
    const racers = writers.slice(0, 6);
    for (let round = 0; round < ROUNDS; round++) {
      const owner = `env-${round}`;
      const token = await register(owner);
      const errors = (
        await Promise.allSettled(
          racers.map((store, i) =>
            setWorkerEnv(depsOf(store), {
              agentId: owner,
              token,
              entries: Array.from({ length: perWriter }, (_, k) => ({ key: `W${i}_K${k}`, value: "v" })),
            }),
          ),
        )
      ).map((r) => (r.status === "rejected" ? r.reason : undefined));
      const refused = errors.filter((e) => e !== undefined);
      expect(refused.length).toBe(racers.length - fit);
      for (const e of refused) expect((e as { code?: string }).code).toBe("INVALID_INPUT");
      const [row] = await mesh.target.sql("SELECT COUNT(*) AS n FROM automation_worker_env WHERE owner = $1", [owner]);
      expect(Number(row?.n)).toBe(fit * perWriter);
    }
  });
});
