// Controller takeover's compare-and-swap against every store: two hosts (no shared host lock between them) that
// both saw the same expired predecessor race for it, and a renew that lands between a takeover's look and its swap.
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Herdr, HerdrAgent } from "../../app/agent_computer/src/adapters/herdr/client.ts";
import { takeoverController } from "../../app/agent_computer/src/domain/herdr/controller-takeover.ts";
import type { HerdrDeps } from "../../app/agent_computer/src/domain/herdr/herdr-deps.ts";
import { herdrStateDirs } from "../../app/agent_computer/src/local/herdr-state.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { ControllerLeaseRecord, Store } from "../../app/agent_computer/src/store/port.ts";
import { memoryProcesses } from "../helpers/local-processes.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const NOW = 5_000_000;
const SHA = "a".repeat(64);

const predecessor = (controllerId: string, expiresAt: number): ControllerLeaseRecord => ({
  controllerId,
  leaseId: `old-${controllerId}`,
  fenceHash: "f".repeat(64),
  generation: 4,
  hostId: "host-gone",
  authorityRef: "acme/api#7",
  authoritySha256: SHA,
  state: "active",
  acquiredAt: 1000,
  renewedAt: 1000,
  expiresAt,
  releasedAt: null,
  checkpointRef: null,
  checkpointSha256: null,
});

const coordinator = (paneId: string, name: string): HerdrAgent => ({
  paneId,
  terminalId: `term_${name}`,
  workspaceId: "w1",
  tabId: "w1:t1",
  name,
  kind: "claude",
  status: "idle",
  stateChangeSeq: 3,
  cwd: "/repo",
  focused: false,
  interactiveReady: true,
  launchPending: false,
});

/** One host: its own state dir and host id, a coordinator agent in its own pane, the shared store. */
const host = (store: Store, hostId: string, controllerId: string, paneId: string): HerdrDeps => ({
  herdr: { getAgent: async () => coordinator(paneId, hostId) } as unknown as Herdr,
  env: { HERDR_ENV: "1", HERDR_PANE_ID: paneId, AGENT_CONTROL_CONTROLLER_ID: controllerId },
  dirs: herdrStateDirs(resolvePaths({ AGENT_COMPUTER_HOME: mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "takeover-")) })),
  host: hostId,
  local: { hostId, probe: () => ({ exists: true, startTime: null }), processes: memoryProcesses(), addresses: () => [] },
  now: () => NOW,
  store,
  git: () => {
    throw new Error("no git here");
  },
  sleep: (ms) => Bun.sleep(ms),
  newId: (prefix) => `${prefix}_x`,
});

/** The store, with every read held until `count` reads arrived: all racers look before any of them swaps. */
const lookTogether = (store: Store, count: number): Store => {
  let arrived = 0;
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    ...store,
    read: async (fn) => {
      const result = await store.read(fn);
      arrived += 1;
      if (arrived >= count) open();
      await gate;
      return result;
    },
    write: (fn) => store.write(fn),
  };
};

const input = (expectedLease: string) => ({ expectedLease, authorityRef: "acme/api#8", authoritySha256: SHA, ttlSeconds: 900 });

describe.each(storeNames)("controller takeover compare-and-swap [%s]", (storeName) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target?.dispose();
  });

  test("two hosts that saw the same expired predecessor: exactly one takes it, the other is told the new lease", async () => {
    await store.write((tx) => tx.herdr.insertControllerLease(predecessor("race.ctl", NOW - 1)));
    const shared = lookTogether(store, 2);
    const outcomes = await Promise.allSettled([
      takeoverController(host(shared, "host-a", "race.ctl", "w1:p1"), input("race.ctl:g4")),
      takeoverController(host(shared, "host-b", "race.ctl", "w2:p1"), input("race.ctl:g4")),
    ]);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.reason).toMatchObject({ code: "CONTROLLER_LEASE_CHANGED" });
    expect(String(lost[0]?.reason.message)).toContain("is now race.ctl:g5");
    const row = await store.read((tx) => tx.herdr.controllerLease("race.ctl"));
    expect(row).toMatchObject({ generation: 5, state: "active" });
    expect(["host-a", "host-b"]).toContain(row?.hostId);
  });

  test("a renew that lands between the look and the swap wins: the takeover loses (same lease id, new expiry)", async () => {
    const old = predecessor("renew.ctl", NOW - 1);
    await store.write((tx) => tx.herdr.insertControllerLease(old));
    const renewing: Store = {
      ...store,
      read: async (fn) => {
        const result = await store.read(fn);
        await store.write((tx) => tx.herdr.replaceControllerLease(old.leaseId, { ...old, expiresAt: NOW + 900_000 }));
        return result;
      },
      write: (fn) => store.write(fn),
    };
    await expect(takeoverController(host(renewing, "host-a", "renew.ctl", "w1:p1"), input("renew.ctl:g4"))).rejects.toMatchObject(
      { code: "CONTROLLER_LEASE_CHANGED" },
    );
    expect(await store.read((tx) => tx.herdr.controllerLease("renew.ctl"))).toMatchObject({
      generation: 4,
      leaseId: old.leaseId,
    });
  });

  test("an unexpired lease of another host is not taken over (its pane cannot be observed from here)", async () => {
    await store.write((tx) => tx.herdr.insertControllerLease(predecessor("far.ctl", NOW + 60_000)));
    await expect(takeoverController(host(store, "host-a", "far.ctl", "w1:p1"), input("far.ctl:g4"))).rejects.toMatchObject({
      code: "CONTROLLER_HELD",
    });
  });
});
