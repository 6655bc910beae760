// In-process mesh calls against a store target, with a controllable clock.

import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { createStoreTarget, type StoreTarget } from "./stores.ts";

export interface MeshClock {
  now: number;
  deps(): Deps;
  advance(ms: number): void;
}

export const meshClock = (store: Store, start = Date.UTC(2026, 10, 30, 12)): MeshClock => {
  const clock: MeshClock = {
    now: start,
    deps: () => ({ store, now: () => clock.now, host: "test-host", newId }),
    advance: (ms) => {
      clock.now += ms;
    },
  };
  return clock;
};

/**
 * The set-up of the mesh contract suites: a store of one kind with a controllable clock, and agents checked in on
 * it whose tokens it keeps. `join` checks an agent in again with the token it holds.
 */
export interface MeshAgents {
  target: StoreTarget;
  store: Store;
  clock: MeshClock;
  deps(): Deps;
  token(agentId: string): string | undefined;
  join(agentId: string): Promise<void>;
  /** The number a `SELECT COUNT(*) AS n …` query answers. */
  count(sql: string): Promise<number>;
  close(): Promise<void>;
}

export const openMeshAgents = async (storeName: "sqlite" | "postgres"): Promise<MeshAgents> => {
  const target = await createStoreTarget(storeName);
  const store = await target.open();
  const clock = meshClock(store);
  const tokens = new Map<string, string>();
  return {
    target,
    store,
    clock,
    deps: () => clock.deps(),
    token: (agentId) => tokens.get(agentId),
    join: async (agentId) => {
      const r = await checkIn(clock.deps(), { agentId, token: tokens.get(agentId), ttlSeconds: 3600 });
      if (r.agent_token) tokens.set(agentId, r.agent_token);
    },
    count: async (sql) => Number((await target.sql(sql))[0]?.n),
    close: async () => {
      await store.close();
      await target.dispose();
    },
  };
};

/** The error a promise rejects with, or undefined when it fulfils: for asserting on codes. */
export const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: { code?: string; message?: string }) => e,
  );
