// Auto-wake test helpers: wait for a condition, and make sure no light watcher outlives its test.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { onTestFailed } from "vitest";
import { probePid } from "../../app/agent_computer/src/adapters/local-host.ts";
import type { WakeLog } from "../../app/agent_computer/src/wake/agent-watch.ts";
import { pollUntil } from "./wait.ts";

/** Polls until `probe` returns a value other than undefined or false, or the time is up. */
export const waitFor = <T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, stepMs = 20): Promise<T> =>
  pollUntil(
    async () => {
      const value = await probe();
      return value === false ? undefined : value;
    },
    { timeoutMs, stepMs, what: "the condition" },
  );

/**
 * An in-process watcher's log: each message, and each entry as a line (time, level, message, fields). Called inside a
 * test, it prints the lines when that test fails, so a wake that did not come says what the watcher decided instead.
 */
export const watcherLog = (label: string): { log: WakeLog; messages: string[]; lines: string[] } => {
  const messages: string[] = [];
  const lines: string[] = [];
  onTestFailed(() => console.error(`wake watcher log for ${label}:\n${lines.join("\n")}`));
  const log: WakeLog = (level, msg, fields) => {
    messages.push(msg);
    lines.push(`${new Date().toISOString()} ${level} ${msg} ${JSON.stringify(fields ?? {})}`);
  };
  return { log, messages, lines };
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
