// Reservation locks: absent, active, stale (dead pid, reused pid, reboot, unreadable for long) and indeterminate
// (another host, unverifiable). Stale ones are moved aside and taken; indeterminate ones are never touched.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { currentBootId, processIdentity } from "../../app/agent_computer/src/adapters/process-ancestry.ts";
import { inspectLock, withReservations } from "../../app/agent_computer/src/domain/herdr/reservation-lock.ts";
import { runBin } from "../helpers/bin.ts";

const HOST = "host-under-test";
const newHome = () => mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "locks-"));
const locksOf = (home: string) => join(home, "herdr", "locks");

/** A lock file as a holder writes it; undefined plants an unreadable one. */
const plant = (home: string, name: string, owner: Record<string, unknown> | undefined): void => {
  mkdirSync(locksOf(home), { recursive: true });
  writeFileSync(join(locksOf(home), `${name}.lock`), owner ? JSON.stringify(owner) : "{not json");
};

const self = () => processIdentity(process.pid) as NonNullable<ReturnType<typeof processIdentity>>;
const ownerFor = (extra: Record<string, unknown>) => ({
  lock_id: "secret-lock-id-123",
  pid: process.pid,
  host: HOST,
  acquired_at: Date.now(),
  boot_id: currentBootId(),
  start_ticks: self().startTicks,
  ...extra,
});

const deadPid = async (): Promise<number> => {
  const child = await execa("sh", ["-c", "echo $$"]);
  return Number(child.stdout.trim());
};

describe.runIf(currentBootId() !== null)("lock states (Linux procfs)", () => {
  test("absent, active, and every kind of stale", async () => {
    const home = newHome();
    const local = { hostId: HOST, now: Date.now() };
    expect(inspectLock(locksOf(home), "writer", local).state).toBe("absent");
    plant(home, "writer", ownerFor({}));
    expect(inspectLock(locksOf(home), "writer", local)).toMatchObject({ state: "active" });
    plant(home, "reviewer", ownerFor({ pid: await deadPid() }));
    expect(inspectLock(locksOf(home), "reviewer", local)).toMatchObject({
      state: "stale",
      reason: expect.stringContaining("gone"),
    });
    plant(home, "adopted", ownerFor({ boot_id: "00000000-0000-0000-0000-000000000000" }));
    expect(inspectLock(locksOf(home), "adopted", local)).toMatchObject({
      state: "stale",
      reason: expect.stringContaining("reboot"),
    });
    plant(home, "receipts", ownerFor({ start_ticks: "1" }));
    expect(inspectLock(locksOf(home), "receipts", local)).toMatchObject({
      state: "stale",
      reason: expect.stringContaining("another process"),
    });
    plant(home, "controller", undefined);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(join(locksOf(home), "controller.lock"), old, old);
    expect(inspectLock(locksOf(home), "controller", local)).toMatchObject({ state: "stale" });
  });

  test("a foreign-host or unverifiable lock is indeterminate and is never taken over", async () => {
    const home = newHome();
    plant(home, "writer", ownerFor({ host: "other-host", pid: await deadPid() }));
    plant(home, "reviewer", ownerFor({ boot_id: null }));
    const local = { hostId: HOST, now: Date.now() };
    expect(inspectLock(locksOf(home), "writer", local).state).toBe("indeterminate");
    expect(inspectLock(locksOf(home), "reviewer", local).state).toBe("indeterminate");
    await expect(withReservations(locksOf(home), ["writer"], { hostId: HOST }, async () => "ran")).rejects.toMatchObject({
      code: "RESERVATION_BUSY",
    });
    expect(JSON.parse(readFileSync(join(locksOf(home), "writer.lock"), "utf8")).host).toBe("other-host");
  });

  test("a stale lock is moved aside and taken; a held one is released after use, also on failure", async () => {
    const home = newHome();
    plant(home, "writer", ownerFor({ pid: await deadPid() }));
    expect(await withReservations(locksOf(home), ["writer", "receipts"], { hostId: HOST }, async () => "ran")).toBe("ran");
    expect(readdirSync(locksOf(home)).some((name) => name.startsWith("writer.lock.stale."))).toBe(true);
    expect(existsSync(join(locksOf(home), "writer.lock"))).toBe(false);
    await expect(
      withReservations(locksOf(home), ["receipts"], { hostId: HOST }, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(existsSync(join(locksOf(home), "receipts.lock"))).toBe(false);
  });

  test("calls of one process queue instead of failing each other", async () => {
    const home = newHome();
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        withReservations(locksOf(home), ["receipts"], { hostId: HOST }, async () => {
          order.push(n);
          await Bun.sleep(20);
        }),
      ),
    );
    expect(order.sort()).toEqual([1, 2, 3]);
  });

  test("bridge-status reports each lock's state without owner pid or lock id", async () => {
    const home = newHome();
    plant(home, "writer", ownerFor({ host: "other-host" }));
    plant(home, "reviewer", ownerFor({ pid: await deadPid() }));
    plant(home, "adopted", ownerFor({ boot_id: "00000000-0000-0000-0000-000000000000" }));
    plant(home, "receipts", ownerFor({}));
    const r = await runBin("herdr-lease-cli", ["bridge-status", "--json"], {
      env: { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_HOST_ID: HOST },
    });
    expect(r.exitCode).toBe(0);
    const locks = r.json<{ reservation_locks: Record<string, { state: string }> }>().reservation_locks;
    expect(Object.fromEntries(Object.entries(locks).map(([name, lock]) => [name, lock.state]))).toEqual({
      controller: "absent",
      reviewer: "stale",
      writer: "indeterminate",
      adopted: "stale",
      receipts: "active",
    });
    expect(r.stdout).not.toContain("secret-lock-id-123");
    expect(r.stdout).not.toContain(String(process.pid));
  });
});
