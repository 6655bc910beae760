// The Herdr coordination repository, run against every store adapter: controller leases as compare-and-swap
// on the lease id, writer claims held until released or failed_closed, state moves only from expected states.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ControllerLeaseRecord, Store, WriterClaimRecord } from "../../app/agent_computer/src/store/port.ts";
import { UniqueViolation } from "../../app/agent_computer/src/store/port.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const lease = (overrides: Partial<ControllerLeaseRecord> = {}): ControllerLeaseRecord => ({
  controllerId: "proj.ctl",
  leaseId: "lease-1",
  fenceHash: "f".repeat(64),
  generation: 1,
  hostId: "host-a",
  authorityRef: "acme/api#7",
  authoritySha256: "a".repeat(64),
  state: "active",
  acquiredAt: 1000,
  renewedAt: 1000,
  expiresAt: 901_000,
  releasedAt: null,
  checkpointRef: null,
  checkpointSha256: null,
  ...overrides,
});

const claim = (overrides: Partial<WriterClaimRecord> = {}): WriterClaimRecord => ({
  leaseId: "lease_w1",
  repoKey: "repo-1",
  controllerId: "proj.ctl",
  hostId: "host-a",
  worktree: "/wt/a",
  branch: "feat-a",
  ownedScopes: ["src/api"],
  blockedScopes: ["docs"],
  ticketRef: "acme/api#7",
  authorityRef: "acme/api#7",
  authoritySha256: "a".repeat(64),
  state: "provisioning",
  checkpointRef: null,
  checkpointSha256: null,
  createdAt: 1000,
  updatedAt: 1000,
  ...overrides,
});

describe.each(storeNames)("herdr coordination store [%s]", (storeName) => {
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

  test("a controller lease is inserted once and replaced only by whoever holds the current lease id", async () => {
    await store.write((tx) => tx.herdr.insertControllerLease(lease()));
    await expect(store.write((tx) => tx.herdr.insertControllerLease(lease({ leaseId: "lease-x" })))).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    const next = lease({ leaseId: "lease-2", generation: 2, fenceHash: "e".repeat(64) });
    expect(await store.write((tx) => tx.herdr.replaceControllerLease("lease-1", next))).toBe(true);
    expect(await store.write((tx) => tx.herdr.replaceControllerLease("lease-1", lease({ leaseId: "lease-3" })))).toBe(false);
    expect(await store.read((tx) => tx.herdr.controllerLease("proj.ctl"))).toEqual(next);
    const released = {
      ...next,
      state: "released" as const,
      releasedAt: 2000,
      checkpointRef: "c1",
      checkpointSha256: "b".repeat(64),
    };
    expect(await store.write((tx) => tx.herdr.replaceControllerLease("lease-2", released))).toBe(true);
    expect(await store.write((tx) => tx.herdr.controllerLease("proj.ctl", true))).toEqual(released);
    expect(await store.read((tx) => tx.herdr.controllerLease("nobody"))).toBeUndefined();
  });

  test("writer claims stay held until released or failed_closed, and move only from the expected state", async () => {
    await store.write(async (tx) => {
      await tx.herdr.lockWriterRepo("repo-1");
      await tx.herdr.lockWriterRepo("repo-1");
      await tx.herdr.insertWriterClaim(claim());
      await tx.herdr.insertWriterClaim(claim({ leaseId: "lease_w2", branch: "feat-b", worktree: "/wt/b", ownedScopes: ["lib"] }));
    });
    const held = await store.read((tx) => tx.herdr.heldWriterClaims("repo-1"));
    expect(held.map((c) => [c.leaseId, c.ownedScopes, c.blockedScopes])).toEqual([
      ["lease_w1", ["src/api"], ["docs"]],
      ["lease_w2", ["lib"], ["docs"]],
    ]);
    expect(await store.write((tx) => tx.herdr.moveWriterClaim("lease_w1", ["active"], "releasing", {}, 2000))).toBe(false);
    expect(await store.write((tx) => tx.herdr.moveWriterClaim("lease_w1", ["provisioning"], "active", {}, 2000))).toBe(true);
    expect(
      await store.write((tx) =>
        tx.herdr.moveWriterClaim(
          "lease_w1",
          ["active"],
          "releasing",
          { checkpointRef: "c1", checkpointSha256: "c".repeat(64) },
          3000,
        ),
      ),
    ).toBe(true);
    expect(await store.write((tx) => tx.herdr.moveWriterClaim("lease_w1", ["releasing"], "released", {}, 4000))).toBe(true);
    expect(await store.write((tx) => tx.herdr.moveWriterClaim("lease_w2", ["provisioning"], "orphaned", {}, 4000))).toBe(true);
    expect((await store.read((tx) => tx.herdr.heldWriterClaims("repo-1"))).map((c) => [c.leaseId, c.state])).toEqual([
      ["lease_w2", "orphaned"],
    ]);
    expect(await store.read((tx) => tx.herdr.writerClaim("lease_w1"))).toMatchObject({
      state: "released",
      checkpointRef: "c1",
      checkpointSha256: "c".repeat(64),
      updatedAt: 4000,
    });
    expect((await store.read((tx) => tx.herdr.writerClaimsOf("proj.ctl"))).length).toBe(2);
    expect(await store.read((tx) => tx.herdr.heldWriterClaims("repo-other"))).toEqual([]);
  });
});
