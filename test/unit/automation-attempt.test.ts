// The pure parts of an attempt: the plan (command, environment from scratch, files), how a process end becomes
// a run result, the per-attempt mcporter config from Skills, WorkerEnv lines and the bounded output tail.
import { describe, expect, test } from "vitest";
import { buildMcporterConfig } from "../../app/agent_computer/src/adapters/mcporter/config.ts";
import { parseEnvLines } from "../../app/agent_computer/src/domain/automation/worker-env.ts";
import type { JobRecord, RunRecord } from "../../app/agent_computer/src/store/port.ts";
import { mcporterShim, planAttempt } from "../../app/agent_computer/src/worker/attempt-plan.ts";
import { outcomeOf } from "../../app/agent_computer/src/worker/attempt-result.ts";
import type { InstallPaths } from "../../app/agent_computer/src/worker/install-paths.ts";
import { TailBuffer } from "../../app/agent_computer/src/worker/tail.ts";

const install: InstallPaths = {
  root: "/opt/ac",
  bunPath: "/opt/ac/node_modules/bun/bin/bun.exe",
  standalone: false,
  sdkPreload: "/opt/ac/app/agent_computer/src/sdk/preload.ts",
  mcporterCli: "/opt/ac/node_modules/mcporter/dist/cli.js",
  defaultSkillsDir: "/opt/ac/skills",
};
const job = { id: "job_1", owner: "alice", timeoutSeconds: 30 } as JobRecord;
const run = { id: "run_1", event: '{"specversion":"1.0","id":"e1"}' } as RunRecord;
const plan = (workerEnv: { key: string; value: string }[] = []) =>
  planAttempt({
    run,
    fence: { runId: "run_1", attempt: 2, leaseToken: "lease_secret" },
    job,
    dir: "/home/alice/jobs/digest",
    entry: "/home/alice/jobs/digest/main.ts",
    workerEnv: workerEnv.map((e) => ({ ...e, updatedAt: 0 })),
    mcporter: { imports: [], mcpServers: {} },
    install,
    binDir: "/state/run/worker-w/bin",
    attemptDir: "/state/run/attempts/run_1-2",
    emitUrl: "http://127.0.0.1:8787/attempts/events",
    home: "/home/alice",
  });

describe("attempt plan", () => {
  test("runs the current main.ts with bun --no-orphans, no auto-install and no .env, the SDK preloaded, in the job dir", () => {
    const p = plan();
    expect([p.command, ...p.args]).toEqual([
      install.bunPath,
      "--no-orphans",
      "--no-install",
      "--no-env-file",
      `--preload=${install.sdkPreload}`,
      "/home/alice/jobs/digest/main.ts",
    ]);
    expect(p.cwd).toBe("/home/alice/jobs/digest");
    expect(p.timeoutMs).toBe(30_000);
  });

  test("the environment is exactly the documented set plus the WorkerEnv; the worker's own variables never enter", () => {
    process.env.WORKER_SECRET_FOR_TEST = "leak";
    const p = plan([{ key: "API_KEY", value: "k" }]);
    delete process.env.WORKER_SECRET_FOR_TEST;
    expect(Object.keys(p.env).sort()).toEqual(
      [
        "API_KEY",
        "AGENT_COMPUTER_ATTEMPT",
        "AGENT_COMPUTER_ATTEMPT_DIR",
        "AGENT_COMPUTER_ATTEMPT_FILE",
        "AGENT_COMPUTER_RUN_ID",
        "HOME",
        "LANG",
        "MCPORTER_CONFIG",
        "MCPORTER_DAEMON_DIR",
        "MCPORTER_DISABLE_KEEPALIVE",
        "MCPORTER_NO_SPINNER",
        "MCPORTER_OAUTH_NO_BROWSER",
        "NO_COLOR",
        "PATH",
        "TMPDIR",
        "XDG_CACHE_HOME",
      ].sort(),
    );
    expect(p.env.PATH?.startsWith("/state/run/worker-w/bin:")).toBe(true);
    expect(p.env.MCPORTER_DISABLE_KEEPALIVE).toBe("*");
    expect(JSON.stringify(p.env)).not.toContain("lease_secret");
  });

  test("a WorkerEnv entry cannot replace a variable the worker sets", () => {
    expect(plan([{ key: "PATH", value: "/evil" }]).env.PATH).not.toBe("/evil");
  });

  test("the fence token and the event travel in a 0600 file, with the 0600 mcporter config", () => {
    const files = plan().files;
    expect(files.map((f) => [f.path, f.mode])).toEqual([
      ["/state/run/attempts/run_1-2/attempt.json", 0o600],
      ["/state/run/attempts/run_1-2/mcporter.json", 0o600],
    ]);
    expect(JSON.parse(files[0]?.content ?? "")).toEqual({
      run_id: "run_1",
      attempt: 2,
      automation_job_id: "job_1",
      emit_url: "http://127.0.0.1:8787/attempts/events",
      lease_token: "lease_secret",
      event: { specversion: "1.0", id: "e1" },
    });
  });

  test("the mcporter shim quotes its paths for sh", () => {
    const shim = mcporterShim({ ...install, bunPath: "/it's here/bun" });
    expect(shim).toContain(
      `exec '/it'\\''s here/bun' --no-install --no-env-file '/opt/ac/node_modules/mcporter/dist/cli.js' "$@"`,
    );
  });
});

describe("process end → run result", () => {
  const exited = { kind: "exited" as const, signal: null, timedOut: false, timeoutSeconds: 5, exception: undefined };
  test.each([
    [{ ...exited, exitCode: 0 }, "succeeded", null, null],
    [{ ...exited, exitCode: 3 }, "failed", "exit", "exited with code 3"],
    [
      { ...exited, exitCode: 1, exception: { name: "TypeError", message: "x is undefined" } },
      "failed",
      "exception",
      "uncaught TypeError: x is undefined",
    ],
    [
      { ...exited, exitCode: null, signal: "SIGTERM", timedOut: true },
      "failed",
      "timeout",
      "ran longer than timeout_seconds=5; its process group was killed",
    ],
    [{ ...exited, exitCode: null, signal: "SIGKILL" }, "failed", "signal", "killed by SIGKILL"],
    [{ kind: "not_started" as const, errorKind: "job_dir_missing" as const, error: "gone" }, "failed", "job_dir_missing", "gone"],
  ])("%o → %s %s", (end, state, errorKind, error) => {
    expect(outcomeOf(end, "out", "err", 7)).toMatchObject({
      state,
      errorKind,
      error,
      stdoutTail: "out",
      stderrTail: "err",
      finishedAt: 7,
    });
  });
});

describe("mcporter config from Skills", () => {
  test("imports off, every server ephemeral, the SKILL_DIR placeholder expanded, cwd in the skill, bad declarations skipped", () => {
    const { config, problems } = buildMcporterConfig([
      {
        skill: "a",
        dir: "/skills/a",
        mcp: {
          mcpServers: {
            srv: { command: "bun", args: ["$" + "{SKILL_DIR}/server.js"], lifecycle: "keep-alive", allowedTools: ["t"] },
          },
        },
      },
      {
        skill: "b",
        dir: "/skills/b",
        mcp: { mcpServers: { srv: { command: "other" }, web: { url: "https://mcp.example/mcp" } } },
      },
      { skill: "c", dir: "/skills/c", mcp: { nope: true } },
    ]);
    expect(config).toEqual({
      imports: [],
      mcpServers: {
        srv: { command: "bun", args: ["/skills/a/server.js"], cwd: "/skills/a", lifecycle: "ephemeral", allowedTools: ["t"] },
        web: { url: "https://mcp.example/mcp", lifecycle: "ephemeral" },
      },
    });
    expect(problems).toEqual([
      "skill b: server srv is already declared by another skill; kept the first",
      'skill c: mcp.json needs an "mcpServers" object',
    ]);
  });
});

describe("WorkerEnv lines", () => {
  test("KEY=VALUE taken literally; comments and blanks skipped; the last value of a key wins", () => {
    expect(parseEnvLines("# c\nA=1\n\nB= x = y \nA=2\n")).toEqual([
      { key: "A", value: "2" },
      { key: "B", value: " x = y " },
    ]);
  });
  test.each([["no equals"], ["1BAD=x"], ["PATH=/x"], ["MCPORTER_CONFIG=/x"], [""]])("%j is refused", (text) => {
    expect(() => parseEnvLines(text)).toThrow(expect.objectContaining({ code: "INVALID_INPUT" }));
  });
});

describe("output tail", () => {
  test("keeps the last N bytes and says how much was dropped", () => {
    const tail = new TailBuffer(8);
    tail.push(Buffer.from("0123456789"));
    tail.push(Buffer.from("abc"));
    expect(tail.text()).toBe("[… 5 earlier bytes dropped]\n56789abc");
  });
});
