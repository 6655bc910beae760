// The launchers run one-shot commands on JavaScriptCore's interpreter only (start-up); the entry point takes
// that setting out of the environment again, so it never reaches a process the command starts.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { longRunning } from "../../app/agent_computer/src/cli/binaries.ts";
import { takeLauncherSettings } from "../../app/agent_computer/src/cli/kernel/launcher-env.ts";
import { binPath, runBin } from "../helpers/bin.ts";
import { binaryNames } from "../helpers/registry.ts";

// The shell test "is BUN_JSC_useJIT unset", then the export: the launcher's line, as generated.
const JIT_OFF = `if [ -z "\${BUN_JSC_useJIT+x}" ]; then export BUN_JSC_useJIT=0 AGENT_COMPUTER_JIT_OFF=1; fi`;

describe("launchers and the JIT", () => {
  test("every one-shot launcher turns the JIT off unless the caller chose; long-running ones keep it", () => {
    for (const name of binaryNames) {
      const text = readFileSync(binPath(name), "utf8");
      expect(text.includes(JIT_OFF), name).toBe(!longRunning.has(name));
    }
    expect(longRunning.has("agent-computer-worker")).toBe(true);
  });

  test("the entry point removes what the launcher set and keeps what the caller set", () => {
    const fromLauncher: Record<string, string | undefined> = {
      AGENT_COMPUTER_INVOKED_AS: "agent-inbox-cli",
      BUN_JSC_useJIT: "0",
      AGENT_COMPUTER_JIT_OFF: "1",
      PATH: "/usr/bin",
    };
    expect(takeLauncherSettings(fromLauncher, "/x/dist/agent-computer")).toBe("agent-inbox-cli");
    expect(fromLauncher).toEqual({ PATH: "/usr/bin" });

    const fromCaller: Record<string, string | undefined> = { BUN_JSC_useJIT: "1" };
    expect(takeLauncherSettings(fromCaller, "/usr/local/bin/agent-send-cli")).toBe("agent-send-cli");
    expect(fromCaller).toEqual({ BUN_JSC_useJIT: "1" });
  });

  test.each([
    ["no setting from the caller", {}],
    ["the caller's own BUN_JSC_useJIT", { BUN_JSC_useJIT: "1" }],
  ])("a one-shot command runs with %s", async (_label, env) => {
    const r = await runBin("agent-inbox-cli", ["--help"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("agent-inbox-cli");
  });
});
