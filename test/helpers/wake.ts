// Auto-wake test helpers: wait for a condition, and make sure no light watcher outlives its test.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { probePid } from "../../app/agent_computer/src/adapters/local-host.ts";

export const waitFor = async <T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  stepMs = 20,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await Bun.sleep(stepMs);
  }
};

/** The pid of every watcher lock under a state dir (one per store). */
export const watcherPids = (stateDir: string): number[] => {
  const root = join(stateDir, "wake");
  if (!existsSync(root)) return [];
  const pids: number[] = [];
  for (const dir of readdirSync(root)) {
    const lock = join(root, dir, "watcher.lock");
    if (!existsSync(lock)) continue;
    try {
      pids.push((JSON.parse(readFileSync(lock, "utf8")) as { pid: number }).pid);
    } catch {
      // a lock being replaced
    }
  }
  return pids;
};

export const isRunning = (pid: number): boolean => probePid(pid).exists;

/** SIGTERM every watcher of the state dir and wait for it to exit (SIGKILL after 5 s): no orphan survives a test. */
export const stopWatchers = async (stateDir: string, extraPids: number[] = []): Promise<void> => {
  for (const pid of new Set([...watcherPids(stateDir), ...extraPids])) {
    if (pid === process.pid || !isRunning(pid)) continue;
    process.kill(pid, "SIGTERM");
    try {
      await waitFor(() => !isRunning(pid) || undefined, 5_000);
    } catch {
      process.kill(pid, "SIGKILL");
    }
  }
};
