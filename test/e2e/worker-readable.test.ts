// The worker as a person meets it: on a terminal (a pseudo-terminal from script(1)) its start line is plain text led by
// `Console: <link>`; piped, it logs JSON lines and the link's token stays out; --log-format overrides either default.
// `ps` names the process after the worker: comm (cut at 15 bytes by the kernel) in both forms, and the full name in
// its command line in the compiled form, which the launcher runs through dist/agent-computer-worker.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterEach, describe, expect, test } from "vitest";
import { workerStarted } from "../helpers/automation.ts";
import { binaryForm, binPath } from "../helpers/bin.ts";

const started: ResultPromise[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  }
});

const workerEnv = () => ({
  AGENT_COMPUTER_HOME: mkdtempSync(join(tmpdir(), "ac-readable-")),
  AGENT_COMPUTER_FORM: binaryForm,
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/root",
});

/** The worker with --once under a pseudo-terminal: everything it wrote to the terminal, stderr and stdout mixed. */
const onTerminal = async (args: string[]): Promise<string> => {
  const command = [binPath("agent-computer-worker"), "--once", ...args].map((word) => `'${word}'`).join(" ");
  const result = await execa("script", ["-q", "-e", "-c", command, "/dev/null"], {
    env: workerEnv(),
    reject: false,
    timeout: 30_000,
  });
  expect(result.exitCode, result.stdout).toBe(0);
  return result.stdout.replaceAll("\r", "");
};

describe("the worker's start line", () => {
  test("on a terminal: plain text, the console link with its token first, no JSON", async () => {
    const out = await onTerminal([]);
    expect(out.split("\n")[0]).toMatch(/^Console: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/);
    expect(out).toContain("webhooks (POST /hooks/<endpoint-id>)");
    expect(out).not.toContain('{"time"');
  });

  test("on a terminal with --log-format json: JSON lines, the link in console_link", async () => {
    const out = await onTerminal(["--log-format", "json"]);
    const start = out
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === "worker started");
    expect(start?.console_link).toMatch(/\?token=/);
    expect(out).not.toContain("Console: ");
  });

  test("piped: JSON lines, with --log-format text plain lines; neither carries the token", async () => {
    const piped = await execa(binPath("agent-computer-worker"), ["--once"], { env: workerEnv(), reject: false });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stderr.split("\n")[0]).toMatch(/^\{"time":/);
    const text = await execa(binPath("agent-computer-worker"), ["--once", "--log-format", "text"], {
      env: workerEnv(),
      reject: false,
    });
    expect(text.stderr.split("\n")[0]).toMatch(
      /^Console: http:\/\/127\.0\.0\.1:\d+\/ \(sign-in link: agent-computer-worker --console-url --port \d+\)$/,
    );
    for (const out of [piped.stderr, text.stderr]) expect(out).not.toContain("token=");
  });
});

test("ps names the running worker agent-computer-worker", async () => {
  const child = execa(binPath("agent-computer-worker"), ["--port", "0"], { env: workerEnv(), reject: false, detached: true });
  started.push(child);
  await workerStarted(child, "worker", 20_000);
  const pid = child.pid as number;
  expect(readFileSync(`/proc/${pid}/comm`, "utf8").trim()).toBe("agent-computer-");
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  if (binaryForm === "compiled") expect(args[0]).toMatch(/\/dist\/agent-computer-worker$/);
  else expect(args.some((arg) => arg.endsWith("/cli/main.ts"))).toBe(true);
});
