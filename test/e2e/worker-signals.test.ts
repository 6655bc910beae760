// The worker stops with its parent: `npm start` stopped with SIGTERM stops the worker too (npm forwards the
// signal; the start script execs the worker, so no shell in between dies and leaves it behind), and a worker
// stopped by a signal ends by that signal, as its --help says.

import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterEach, expect, test } from "vitest";
import { binaryForm, binPath, repoRoot } from "../helpers/bin.ts";
import { pollUntil } from "../helpers/wait.ts";
import { isRunning } from "../helpers/wake.ts";

const started: ResultPromise[] = [];

// Each process runs in its own group (detached): cleanup ends the whole group, whatever the test left.
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  }
});

const childrenOf = (pid: number): number[] =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);

const workerEnv = () => {
  const home = mkdtempSync(join(tmpdir(), "ac-signals-"));
  return {
    HOME: home,
    AGENT_COMPUTER_HOME: join(home, "state"),
    AGENT_COMPUTER_FORM: binaryForm,
    npm_config_update_notifier: "false",
  };
};

const spawn = (file: string, args: string[], env: Record<string, string>): { child: ResultPromise; stderr: () => string } => {
  const child = execa(file, args, { cwd: repoRoot, env, reject: false, detached: true, timeout: 60_000 });
  started.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return { child, stderr: () => stderr };
};

const whenStarted = (stderr: () => string) =>
  pollUntil(() => (stderr().includes('"msg":"worker started"') ? true : undefined), {
    timeoutMs: 30_000,
    stepMs: 50,
    what: "the worker's start line",
  });

test("npm start stopped with SIGTERM stops the worker: no orphan, and npm ends by SIGTERM too", async () => {
  const { child: npm, stderr } = spawn("npm", ["start", "--", "--port", "0", "--json"], workerEnv());
  await whenStarted(stderr);
  const [worker, ...others] = childrenOf(npm.pid as number);
  expect(others).toEqual([]);
  expect(readFileSync(`/proc/${worker}/cmdline`, "utf8")).toContain("--port");

  process.kill(npm.pid as number, "SIGTERM");
  const ended = await npm;
  expect(isRunning(worker as number), "the worker outlived npm start").toBe(false);
  // npm ends the way its script's process did: by SIGTERM, not with an error exit code.
  expect(ended.signal).toBe("SIGTERM");
  expect(JSON.parse(String(ended.stdout).slice(String(ended.stdout).indexOf("{")))).toMatchObject({
    stopped_by: "SIGTERM",
    forced: false,
  });
});

test.each(["SIGTERM", "SIGINT"] as const)(
  "a worker stopped by %s prints its summary, then ends by that signal",
  async (signal) => {
    const { child, stderr } = spawn(binPath("agent-computer-worker"), ["--port", "0", "--json"], workerEnv());
    await whenStarted(stderr);
    process.kill(child.pid as number, signal);
    const ended = await child;
    expect(ended.signal).toBe(signal);
    expect(ended.exitCode).toBeUndefined();
    expect(JSON.parse(String(ended.stdout))).toMatchObject({ stopped_by: signal, forced: false });
    expect(stderr()).toContain('"msg":"worker stopped"');
  },
);
