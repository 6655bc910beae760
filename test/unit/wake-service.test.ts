// The one wake service in process: the lock decides who runs, a light watcher that finds one running opens no
// store, a light watcher exits when nothing is armed or when the lock stops naming it, and every role releases the
// lock. (Takeover from a light watcher by the worker spawns processes: test/e2e/herdr-wake-arming.test.ts.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { acquireWatcherLock, liveHolder, watcherLockFile } from "../../app/agent_computer/src/local/wake-lock.ts";
import { wakeDirFor } from "../../app/agent_computer/src/local/wake-registrations.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { runWakeService, type WakeServiceDeps } from "../../app/agent_computer/src/wake/wake-service.ts";
import { waitFor } from "../helpers/wake.ts";

/** A SQLite store (so no LISTEN) that counts every read and write: the process's store opens at its first use. */
const countingStore = () => {
  let touched = 0;
  const touch = () => {
    touched += 1;
    return Promise.reject(new Error("nothing armed: the store is not needed"));
  };
  const store: Store = { dialect: "sqlite", read: touch, write: touch, close: async () => {} };
  return { store, touched: () => touched };
};

const service = (env: Record<string, string> = {}) => {
  const fullEnv = { AGENT_COMPUTER_HOME: mkdtempSync(join(tmpdir(), "ac-wake-svc-")), ...env };
  const paths = resolvePaths(fullEnv);
  const logs: string[] = [];
  const counted = countingStore();
  const deps: WakeServiceDeps = {
    env: fullEnv,
    paths,
    store: counted.store,
    host: "test-host",
    newId,
    log: (_level, msg, fields) => logs.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    now: () => Date.now(),
  };
  return { deps, wakeDir: wakeDirFor(fullEnv, paths), logs, touched: counted.touched };
};

describe("the wake service (worker and light watcher)", () => {
  test("a light watcher with nothing armed exits idle and releases the lock", async () => {
    const s = service({ AGENT_COMPUTER_WAKE_IDLE_EXIT_MS: "100" });
    const result = await runWakeService(s.deps, { role: "light", signal: new AbortController().signal });
    expect(result).toEqual({ outcome: "idle", wakeDir: s.wakeDir });
    expect(s.touched()).toBe(0);
    expect(liveHolder(s.wakeDir)).toBeUndefined();
    expect(s.logs[0]).toMatch(/^light wake watcher started .*"poll_ms":20/);
    expect(s.logs.at(-1)).toMatch(/^light wake watcher exited .*"outcome":"idle"/);
  });

  test("a light watcher that finds the lock held gives way without touching the store", async () => {
    const s = service();
    const worker = new AbortController();
    const held = runWakeService(s.deps, { role: "worker", signal: worker.signal });
    await waitFor(() => liveHolder(s.wakeDir));
    const lightStore = countingStore();
    const light = { ...s.deps, store: lightStore.store };
    const result = await runWakeService(light, { role: "light", signal: new AbortController().signal });
    expect(result).toMatchObject({ outcome: "already_running", holder: { role: "worker", pid: process.pid } });
    expect(lightStore.touched()).toBe(0);
    expect(liveHolder(s.wakeDir)?.role).toBe("worker");
    worker.abort();
    expect(await held).toMatchObject({ outcome: "stopped" });
  });

  test("the worker runs until its signal aborts, never idle, and releases the lock", async () => {
    const s = service({ AGENT_COMPUTER_WAKE_IDLE_EXIT_MS: "100" });
    const abort = new AbortController();
    const running = runWakeService(s.deps, { role: "worker", signal: abort.signal });
    await waitFor(() => (s.logs.some((l) => l.startsWith("worker wake watcher started")) ? true : undefined));
    await Bun.sleep(300); // three idle-exit periods: a light watcher would have left by now
    expect(liveHolder(s.wakeDir)?.role).toBe("worker");
    abort.abort();
    expect(await running).toEqual({ outcome: "stopped", wakeDir: s.wakeDir });
    expect(liveHolder(s.wakeDir)).toBeUndefined();
  });

  test("a light watcher stops once the lock file no longer names it", async () => {
    const s = service();
    const running = runWakeService(s.deps, { role: "light", signal: AbortSignal.timeout(60_000) });
    await waitFor(() => liveHolder(s.wakeDir));
    rmSync(watcherLockFile(s.wakeDir));
    expect(await running).toEqual({ outcome: "stopped", wakeDir: s.wakeDir });
    // It did not take the lock back on its way out.
    const after = acquireWatcherLock(s.wakeDir, "light");
    expect(after.acquired).toBe(true);
    if (after.acquired) after.release();
  });
});
