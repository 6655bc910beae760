// In-process mesh calls against a store target, with a controllable clock.

import { type CheckinInput, type CheckinResult, checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import { type RegisterResult, registerAgent } from "../../app/agent_computer/src/domain/agents/register.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { createStoreTarget, type StoreTarget } from "./stores.ts";

export interface MeshClock {
  now: number;
  deps(): Deps;
  advance(ms: number): void;
}

/** `store`: the store, or how to find it at each call (for a suite that closes and reopens it). */
export const meshClock = (store: Store | (() => Store), start = Date.UTC(2026, 10, 30, 12)): MeshClock => {
  const clock: MeshClock = {
    now: start,
    deps: () => ({ store: typeof store === "function" ? store() : store, now: () => clock.now, host: "test-host", newId }),
    advance: (ms) => {
      clock.now += ms;
    },
  };
  return clock;
};

/**
 * The set-up of the mesh contract suites: a store of one kind with a controllable clock, and agents checked in on
 * it whose tokens it keeps. `join` checks an agent in (again, with the token it holds); `register` registers one
 * without a session; either keeps a token the agent is given.
 */
export interface MeshAgents {
  target: StoreTarget;
  /** The open store (the one `reopen` opened last). */
  readonly store: Store;
  clock: MeshClock;
  deps(): Deps;
  token(agentId: string): string | undefined;
  /** Keeps `token` as the agent's (a suite that minted it another way). */
  remember(agentId: string, token: string): void;
  /** `extra`: check-in's options (without it, a ttl of an hour). */
  join(agentId: string, extra?: Omit<CheckinInput, "agentId" | "token">): Promise<CheckinResult>;
  register(agentId: string, capabilities?: string[]): Promise<RegisterResult>;
  /** The number a `SELECT COUNT(*) AS n …` query answers. */
  count(sql: string): Promise<number>;
  /** Closes the store and opens it again: its connections end meanwhile (a suite counting the server's sessions). */
  reopen(meanwhile?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** `start`: the clock's first time (meshClock's default unless given). */
export const openMeshAgents = async (storeName: "sqlite" | "postgres", start?: number): Promise<MeshAgents> => {
  const target = await createStoreTarget(storeName);
  let store: Store | undefined = await target.open();
  const current = (): Store => {
    if (!store) throw new Error("the mesh's store is closed (reopen is under way)");
    return store;
  };
  const clock = meshClock(current, start);
  const tokens = new Map<string, string>();
  const keep = <T extends { agent_token?: string | undefined }>(agentId: string, r: T): T => {
    if (r.agent_token) tokens.set(agentId, r.agent_token);
    return r;
  };
  return {
    target,
    get store() {
      return current();
    },
    clock,
    deps: () => clock.deps(),
    token: (agentId) => tokens.get(agentId),
    remember: (agentId, token) => {
      tokens.set(agentId, token);
    },
    join: async (agentId, extra = { ttlSeconds: 3600 }) =>
      keep(agentId, await checkIn(clock.deps(), { agentId, token: tokens.get(agentId), ...extra })),
    register: async (agentId, capabilities = []) =>
      keep(agentId, await registerAgent(clock.deps(), { agentId, role: null, capabilities, token: tokens.get(agentId) })),
    count: async (sql) => Number((await target.sql(sql))[0]?.n),
    reopen: async (meanwhile) => {
      await current().close();
      store = undefined;
      await meanwhile?.();
      store = await target.open();
    },
    close: async () => {
      await store?.close();
      store = undefined;
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
