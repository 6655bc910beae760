// The light watcher's launch plan: its own launcher with --run, a curated environment, and the JIT kept on
// (it runs for long; the launcher turns the JIT off only for one-shot calls).
import { describe, expect, test } from "vitest";
import { lightWatcherPlan } from "../../app/agent_computer/src/wake/launch.ts";

describe("light watcher launch plan", () => {
  test("curated environment with the JIT on, from the source form", () => {
    const plan = lightWatcherPlan({
      env: {
        PATH: "/usr/bin",
        HOME: "/home/a",
        AGENT_COMPUTER_HOME: "/state",
        AGENT_COMPUTER_INVOKED_AS: "agent-checkin-cli",
        RELAY_AGENT_TOKEN: "act_secret",
        BUN_JSC_useJIT: "0",
      },
      moduleDir: "/pkg/app/agent_computer/src/wake",
      execPath: "/pkg/node_modules/bun/bin/bun.exe",
    });
    expect(plan.command).toBe("/pkg/bin/agent-wake-cli");
    expect(plan.args).toEqual(["--run"]);
    expect(plan.env).toEqual({ PATH: "/usr/bin", HOME: "/home/a", AGENT_COMPUTER_HOME: "/state", BUN_JSC_useJIT: "1" });
  });

  test("from the compiled executable the launcher is found beside dist/", () => {
    const plan = lightWatcherPlan({ env: {}, moduleDir: "/$bunfs/root", execPath: "/pkg/dist/agent-computer" });
    expect(plan.command).toBe("/pkg/bin/agent-wake-cli");
  });
});
