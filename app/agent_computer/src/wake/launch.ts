// Makes sure this host's wake watcher runs for a store: the worker when it holds the watcher lock, otherwise a
// light watcher (`agent-wake-cli --run`) started detached in its own process group. The plan is pure; the spawn is
// the only effect, and the lock decides which of several racing starters keeps running.
import { closeSync, existsSync, openSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { liveHolder, type WatcherHolder } from "../local/wake-lock.ts";

export interface LaunchPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const LOG_ROTATE_BYTES = 1024 * 1024;
const CONFIRM_TIMEOUT_MS = 10_000;

// What the watcher needs to reach the store and Herdr; the agent's token and pane-specific values stay behind.
const keep = (key: string): boolean =>
  ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR", "NO_COLOR", "HERDR_SOCKET_PATH", "HERDR_SESSION"].includes(key) ||
  key.startsWith("LC_") ||
  key.startsWith("XDG_") ||
  (key.startsWith("AGENT_COMPUTER_") && key !== "AGENT_COMPUTER_INVOKED_AS");

/**
 * The light watcher's command: the package's own bin/agent-wake-cli launcher with --run, found from this module (source
 * form) or from the compiled executable in dist/ (whose modules live in Bun's virtual /$bunfs).
 */
export const lightWatcherPlan = (input: {
  env: Readonly<Record<string, string | undefined>>;
  moduleDir: string;
  execPath: string;
}): LaunchPlan => {
  const compiled = input.moduleDir.startsWith("/$bunfs") || input.moduleDir.startsWith("B:/~BUN");
  // Source form: this module is <root>/app/agent_computer/src/wake/launch.ts.
  const root = compiled ? dirname(dirname(input.execPath)) : join(input.moduleDir, "..", "..", "..", "..");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.env)) if (value !== undefined && keep(key)) env[key] = value;
  // The watcher runs for long: it keeps JavaScriptCore's JIT, which the launcher turns off for one-shot calls.
  env.BUN_JSC_useJIT = "1";
  return { command: join(root, "bin", "agent-wake-cli"), args: ["--run"], env };
};

const openLog = (wakeDir: string): number => {
  const log = join(wakeDir, "watcher.log");
  if (existsSync(log) && statSync(log).size > LOG_ROTATE_BYTES) renameSync(log, `${log}.1`);
  return openSync(log, "a", 0o600);
};

const spawnDetached = (plan: LaunchPlan, wakeDir: string): number | undefined => {
  const log = openLog(wakeDir);
  try {
    const child = execa(plan.command, plan.args, {
      cwd: wakeDir,
      env: plan.env,
      extendEnv: false,
      detached: true,
      cleanup: false,
      stdin: "ignore",
      // An integer fd goes straight to spawn (no piping through this short-lived process); execa's types omit it.
      stdout: log as unknown as "inherit",
      stderr: log as unknown as "inherit",
      reject: false,
    });
    child.catch(() => undefined);
    child.unref();
    return child.pid;
  } finally {
    closeSync(log);
  }
};

export type WatcherStart = { ok: true; holder: WatcherHolder; started: boolean } | { ok: false; reason: string };

/** Returns the live watcher, starting a light one when none holds the lock, and waits until one does. */
export const ensureWakeWatcher = async (
  wakeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<WatcherStart> => {
  const running = liveHolder(wakeDir);
  if (running) return { ok: true, holder: running, started: false };
  const pid = spawnDetached(lightWatcherPlan({ env, moduleDir: import.meta.dir, execPath: process.execPath }), wakeDir);
  const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const holder = liveHolder(wakeDir);
    // Any live holder will do: a racing check-in's watcher, or the worker, is as good as ours.
    if (holder) return { ok: true, holder, started: holder.pid === pid };
    await Bun.sleep(20);
  }
  return {
    ok: false,
    reason: `the wake watcher did not start within ${CONFIRM_TIMEOUT_MS / 1000} s (see ${join(wakeDir, "watcher.log")})`,
  };
};
