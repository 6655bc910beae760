// The plan of one attempt, as data: what to run, where, with which environment and which files. Pure, so the
// environment (built from scratch: no variable of the worker leaks into a script) is tested without spawning.
import { join } from "node:path";
import type { McporterConfig } from "../adapters/mcporter/config.ts";
import type { AttemptFile } from "../domain/automation/attempt-file.ts";
import type { EnvEntry, Fence, JobRecord, RunRecord } from "../store/port.ts";
import type { InstallPaths } from "./install-paths.ts";

export interface AttemptPlanInput {
  run: RunRecord;
  fence: Fence;
  job: JobRecord;
  /** The job directory and main.ts, resolved by real path just now. */
  dir: string;
  entry: string;
  workerEnv: readonly EnvEntry[];
  mcporter: McporterConfig;
  install: InstallPaths;
  /** Per-worker directory holding the bun and mcporter commands scripts find on PATH. */
  binDir: string;
  attemptDir: string;
  emitUrl: string;
  home: string;
}

export interface PlannedFile {
  path: string;
  content: string;
  mode: number;
}

export interface AttemptPlan {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  files: PlannedFile[];
  dirs: string[];
  timeoutMs: number;
}

export const planAttempt = (p: AttemptPlanInput): AttemptPlan => {
  const file = (name: string) => join(p.attemptDir, name);
  const attemptFile: AttemptFile = {
    run_id: p.run.id,
    attempt: p.fence.attempt,
    automation_job_id: p.job.id,
    emit_url: p.emitUrl,
    lease_token: p.fence.leaseToken,
    event: JSON.parse(p.run.event),
  };
  const env: Record<string, string> = {};
  for (const entry of p.workerEnv) env[entry.key] = entry.value;
  Object.assign(env, {
    PATH: `${p.binDir}:/usr/local/bin:/usr/bin:/bin`,
    HOME: p.home,
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    TMPDIR: file("tmp"),
    // mcporter: exactly this attempt's servers, no keep-alive daemon, caches private to the attempt.
    XDG_CACHE_HOME: file("cache"),
    MCPORTER_CONFIG: file("mcporter.json"),
    MCPORTER_DISABLE_KEEPALIVE: "*",
    MCPORTER_DAEMON_DIR: file("mcporter-daemon"),
    MCPORTER_OAUTH_NO_BROWSER: "1",
    MCPORTER_NO_SPINNER: "1",
    AGENT_COMPUTER_ATTEMPT_FILE: file("attempt.json"),
    AGENT_COMPUTER_ATTEMPT_DIR: p.attemptDir,
    AGENT_COMPUTER_RUN_ID: p.run.id,
    AGENT_COMPUTER_ATTEMPT: String(p.fence.attempt),
    ...(p.install.standalone ? { BUN_BE_BUN: "1" } : {}),
  });
  return {
    command: p.install.bunPath,
    args: ["--no-orphans", "--no-install", "--no-env-file", `--preload=${p.install.sdkPreload}`, p.entry],
    cwd: p.dir,
    env,
    dirs: [p.attemptDir, file("tmp"), file("cache"), file("mcporter-daemon")],
    files: [
      { path: file("attempt.json"), content: JSON.stringify(attemptFile), mode: 0o600 },
      { path: file("mcporter.json"), content: JSON.stringify(p.mcporter, null, 2), mode: 0o600 },
    ],
    timeoutMs: p.job.timeoutSeconds * 1000,
  };
};

/** Quotes a word for sh (used where a command line is written for a person or a shell). */
export const shellQuote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/** The mcporter command on the attempt's PATH: mcporter's CLI run by the worker's own Bun. */
export const mcporterShim = (install: InstallPaths): string =>
  [
    "#!/bin/sh",
    "# mcporter for automation attempts (written by agent-computer-worker): mcporter's CLI on the worker's Bun.",
    `exec ${shellQuote(install.bunPath)} --no-install --no-env-file ${shellQuote(install.mcporterCli)} "$@"`,
    "",
  ].join("\n");
