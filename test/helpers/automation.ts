// Helpers for the automation suites: job directories, owners checked in through the real binary, CLI calls that
// parse --json, and workers run as real processes (--once, or a daemon whose URL is read from its start log line).

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { checkInAgent, type TestAgent } from "./agents.ts";
import { binPath, repoRoot, runBin } from "./bin.ts";
import { identityEnv } from "./identity.ts";
import type { StoreTarget } from "./stores.ts";
import { pollUntil } from "./wait.ts";

export const fixtureSkills = join(repoRoot, "test", "fixtures", "skills");

/** The environment spawned binaries use: the target's store, the TypeScript sources, no rate limits. */
export const automationEnv = (target: StoreTarget, extra: Record<string, string> = {}): Record<string, string> =>
  identityEnv(target, { AGENT_COMPUTER_SKILLS_DIR: fixtureSkills, ...extra });

/** A fresh job directory holding main.ts (and any other files given). */
export const jobDir = (main: string, files: Record<string, string> = {}): string => {
  const dir = mkdtempSync(join(tmpdir(), "ac-job-"));
  writeFileSync(join(dir, "main.ts"), main);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
};

export const owner = async (env: Record<string, string>, id: string): Promise<TestAgent> => {
  const tokens = mkdtempSync(join(tmpdir(), "ac-tokens-"));
  return checkInAgent(env, tokens, id);
};

/** Runs one CLI with --json as the agent; throws with stderr when it fails, unless `expectExit` is given. */
export const cli = async <T = Record<string, unknown>>(
  env: Record<string, string>,
  agent: TestAgent,
  name: string,
  args: string[],
  options: { input?: string; expectExit?: number } = {},
): Promise<T> => {
  const words = name.split(" ");
  const r = await runBin(
    words[0] as string,
    [...words.slice(1), "--agent-id", agent.id, "--token-file", agent.tokenFile, ...args, "--json"],
    {
      env,
      input: options.input,
    },
  );
  const expected = options.expectExit ?? 0;
  if (r.exitCode !== expected)
    throw new Error(`${name} ${args.join(" ")} exited ${r.exitCode}, expected ${expected}: ${r.stderr}`);
  return (expected === 0 ? r.json<T>() : JSON.parse(r.stderr)) as T;
};

export const createJob = async (
  env: Record<string, string>,
  agent: TestAgent,
  dir: string,
  extra: string[] = [],
): Promise<string> =>
  (await cli<{ id: string }>(env, agent, "create-automation-job-cli", ["--dir", dir, "--label", "test job", ...extra])).id;

export interface RunJson {
  id: string;
  state: string;
  attempt: number;
  error_kind: string | null;
  error: string | null;
  exit_code: number | null;
  signal: string | null;
  emitted_count: number;
  stdout_tail: string | null;
  stderr_tail: string | null;
  trigger_kind: string;
  attempts?: { attempt: number; worker_id: string; outcome: string }[];
}

export const showRuns = async (env: Record<string, string>, agent: TestAgent, jobId: string): Promise<RunJson[]> =>
  (await cli<{ runs: RunJson[] }>(env, agent, "show-automation-job-cli", ["--id", jobId, "--runs", "100"])).runs;

export const workerOnce = async (env: Record<string, string>, args: string[] = []) => {
  const r = await execa(binPath("agent-computer-worker"), ["--once", "--json", ...args], { env, reject: false, timeout: 60_000 });
  if (r.exitCode !== 0) throw new Error(`worker --once exited ${r.exitCode}: ${r.stderr}`);
  return { stderr: String(r.stderr), lines: logLines(String(r.stderr)) };
};

export const logLines = (stderr: string): Record<string, unknown>[] =>
  stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

export interface Daemon {
  url: string;
  process: ResultPromise;
  stderr(): string;
}

/** Starts agent-computer-worker as a daemon on a free port and resolves once it logged its URL. */
export const startDaemon = async (env: Record<string, string>, args: string[] = []): Promise<Daemon> => {
  const child = execa(binPath("agent-computer-worker"), ["--port", "0", ...args], { env, reject: false, buffer: true });
  return { ...(await workerStarted(child, "worker", 20_000)), process: child };
};

/**
 * Waits for a worker process to log "worker started" and gives its URL, and everything it wrote to stderr so far
 * (it keeps collecting). Fails when the process exits first or `timeoutMs` passes; `what` names it in the error.
 */
export const workerStarted = async (
  child: ResultPromise,
  what: string,
  timeoutMs: number,
): Promise<{ url: string; stderr: () => string }> => {
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${stderr}`)), timeoutMs);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const started = logLines(stderr).find((l) => l.msg === "worker started");
      if (started) {
        clearTimeout(timer);
        resolve(String(started.console_url).replace(/\/$/, ""));
      }
    });
    void child.then(() => reject(new Error(`${what} exited early: ${stderr}`)));
  });
  return { url, stderr: () => stderr };
};

const SDK = join(repoRoot, "app", "agent_computer", "src", "sdk", "automation.ts");

/**
 * A lost attempt speaking up late: emits one event through the SDK with the attempt file `staleFile` and prints
 * what came of it, "accepted" or the error's name (AttemptFencedError when the store refuses it).
 */
export const emitLate = async (staleFile: string): Promise<string> => {
  const late = await execa(
    process.execPath,
    [
      "-e",
      `import { emitEvent } from ${JSON.stringify(SDK)}; try { await emitEvent({ late: true }); console.log("accepted"); } catch (e) { console.log(e.name); }`,
    ],
    { env: { AGENT_COMPUTER_ATTEMPT_FILE: staleFile }, reject: false },
  );
  return String(late.stdout).trim();
};

/** The console link its owner gets for the daemon at `url`, the documented way: agent-computer-worker --console-url. */
export const consoleLinkFor = async (env: Record<string, string>, url: string): Promise<string> => {
  const port = new URL(url).port;
  const r = await execa(binPath("agent-computer-worker"), ["--console-url", "--port", port, "--json"], { env, reject: false });
  if (r.exitCode !== 0) throw new Error(`agent-computer-worker --console-url exited ${r.exitCode}: ${r.stderr}`);
  return (JSON.parse(String(r.stdout)) as { console_url: string }).console_url;
};

/** Polls until `check` returns a value (not undefined) or the time is up. */
export const waitFor = <T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = "condition"): Promise<T> =>
  pollUntil(check, { timeoutMs, stepMs: 50, what });

/** A directory inside the job dir's parent, for files a script leaves for the test to read. */
export const scratchDir = (): string => {
  const dir = join(mkdtempSync(join(tmpdir(), "ac-scratch-")), "out");
  mkdirSync(dir);
  return dir;
};
