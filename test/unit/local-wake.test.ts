// Auto-wake's host-local state: registrations (0600 files, atomic, never read half-written) and the one watcher
// lock per host and store, which reports its holder as agent-wake-cli prints it.
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { currentBootId } from "../../app/agent_computer/src/adapters/process-ancestry.ts";
import { acquireWatcherLock, liveHolder, readHolder, watcherLockFile } from "../../app/agent_computer/src/local/wake-lock.ts";
import {
  listRegistrations,
  readRegistration,
  type WakeRegistration,
  writeRegistration,
} from "../../app/agent_computer/src/local/wake-registrations.ts";

const newWakeDir = () => mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "wake-"));
const modeOf = (path: string): number => statSync(path).mode & 0o777;

const registration = (agentId: string): WakeRegistration => ({
  agent_id: agentId,
  pane_id: "w1:p1",
  session_id: "s1",
  terminal_id: "t1",
  kind: null,
  herdr_env: {},
  armed_at: 1,
});

describe("wake registrations", () => {
  test("a registration carries an agent id of the --agent-id rule: others are refused, and never listed", () => {
    const wakeDir = newWakeDir();
    expect(() => writeRegistration(wakeDir, registration("no spaces"))).toThrow();
    writeRegistration(wakeDir, registration("alice"));
    writeFileSync(join(wakeDir, "agents", "x.json"), JSON.stringify({ ...registration("x"), agent_id: "../x" }));
    expect(listRegistrations(wakeDir).map((r) => r.agent_id)).toEqual(["alice"]);
  });

  test("a registration is a 0600 file in a 0700 directory; a crashed writer's temp file is never listed", () => {
    const wakeDir = newWakeDir();
    writeRegistration(wakeDir, registration("alice"));
    writeFileSync(join(wakeDir, "agents", "bob.json.4242.deadbeef.tmp"), '{"agent_id":"bob"');
    expect(listRegistrations(wakeDir).map((r) => r.agent_id)).toEqual(["alice"]);
    expect(readRegistration(wakeDir, "alice")).toEqual(registration("alice"));
    expect(modeOf(join(wakeDir, "agents"))).toBe(0o700);
    expect(modeOf(join(wakeDir, "agents", "alice.json"))).toBe(0o600);
    expect(() => writeRegistration(wakeDir, registration("../escape"))).toThrow();
    expect(readdirSync(wakeDir)).toEqual(["agents"]);
  });
});

describe.runIf(currentBootId() !== null)("the watcher lock", () => {
  test("one holder at a time, reported as pid, start time, role, host and start", () => {
    const wakeDir = newWakeDir();
    const first = acquireWatcherLock(wakeDir, "light");
    expect(first.acquired).toBe(true);
    const second = acquireWatcherLock(wakeDir, "worker");
    expect(second).toEqual({
      acquired: false,
      holder: {
        pid: process.pid,
        start_time: expect.stringMatching(/^\d+$/),
        role: "light",
        host: hostname(),
        started_at: expect.any(Number),
      },
    });
    expect(liveHolder(wakeDir)).toEqual(readHolder(wakeDir));
    if (first.acquired) first.release();
    expect(readHolder(wakeDir)).toBeUndefined();
  });

  test("a dead holder's lock is replaced without leaving its remains; another host's is live", async () => {
    const wakeDir = newWakeDir();
    const dead = Number((await execa("sh", ["-c", "echo $$"])).stdout.trim());
    const holder = { lock_id: "x", pid: dead, start_ticks: "1", boot_id: currentBootId(), host: hostname(), acquired_at: 1 };
    writeFileSync(watcherLockFile(wakeDir), JSON.stringify({ ...holder, role: "light" }));
    expect(liveHolder(wakeDir)).toBeUndefined();
    const taken = acquireWatcherLock(wakeDir, "worker");
    expect(taken.acquired).toBe(true);
    expect(readdirSync(wakeDir)).toEqual(["watcher.lock"]);
    expect(JSON.parse(readFileSync(watcherLockFile(wakeDir), "utf8"))).toMatchObject({ pid: process.pid, role: "worker" });

    writeFileSync(watcherLockFile(wakeDir), JSON.stringify({ ...holder, host: "elsewhere", role: "worker" }));
    expect(liveHolder(wakeDir)).toMatchObject({ pid: dead, host: "elsewhere" });
    expect(acquireWatcherLock(wakeDir, "light")).toMatchObject({ acquired: false, holder: { host: "elsewhere" } });
  });
});
