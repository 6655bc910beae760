// skills/agent-mesh/hooks/agent-state, run as the clients run it (hook JSON on stdin): each client event becomes the
// pane's state in a 0600 file of the state dir; nothing happens outside tmux; bad input changes nothing and still
// exits 0 without output; session-start seeds the pane as idle.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, test } from "vitest";
import { readAgentState, stateForHookEvent, tmuxPaneKey } from "../../app/agent_computer/src/local/agent-state.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import { repoRoot } from "../helpers/bin.ts";

const hook = join(repoRoot, "skills/agent-mesh/hooks/agent-state");
const home = mkdtempSync(join(tmpdir(), "ac-state-hook-"));
const paths = resolvePaths({ AGENT_COMPUTER_HOME: home });
const place = { socket: join(home, "tmux.sock"), pane: "%7" };
const tmuxEnv = { AGENT_COMPUTER_HOME: home, TMUX: `${place.socket},123,0`, TMUX_PANE: place.pane, PATH: process.env.PATH };

const runHook = (input: unknown, env: Record<string, string | undefined> = tmuxEnv) =>
  execa(hook, ["claude"], {
    input: typeof input === "string" ? input : JSON.stringify(input),
    env,
    extendEnv: false,
    reject: false,
  });

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("the agent-state hook", () => {
  test("UserPromptSubmit means working, a permission Notification blocked, Stop idle", async () => {
    for (const [input, state] of [
      [{ hook_event_name: "UserPromptSubmit", prompt: "do it" }, "working"],
      [{ hook_event_name: "Notification", notification_type: "permission_prompt", message: "x" }, "blocked"],
      [{ hook_event_name: "PreToolUse", tool_name: "Bash" }, "working"],
      [{ hook_event_name: "Stop", stop_hook_active: false }, "idle"],
    ] as const) {
      const r = await runHook(input);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe("");
      expect(readAgentState(paths, place)?.state).toBe(state);
    }
    const file = join(home, "agent-state", `${tmuxPaneKey(place)}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "agent-state")).mode & 0o777).toBe(0o700);
  });

  test("bad input, events that say nothing, and a session outside tmux change nothing", async () => {
    await runHook({ hook_event_name: "Stop" });
    for (const input of [
      "not json",
      "[]",
      { hook_event_name: "Notification", message: "Claude is waiting" },
      { hook_event_name: 5 },
    ]) {
      const r = await runHook(input);
      expect(r.exitCode).toBe(0);
      expect(readAgentState(paths, place)?.state).toBe("idle");
    }
    const outside = await runHook({ hook_event_name: "UserPromptSubmit" }, { AGENT_COMPUTER_HOME: home, PATH: process.env.PATH });
    expect(outside.exitCode).toBe(0);
    expect(readAgentState(paths, place)?.state).toBe("idle");
  });

  test("the event table", () => {
    expect(stateForHookEvent("Notification", undefined, "Claude needs your permission to use Bash")).toBe("blocked");
    expect(stateForHookEvent("Notification", "idle_prompt", "waiting")).toBe("idle");
    expect(stateForHookEvent("PermissionRequest", undefined, undefined)).toBe("blocked");
    expect(stateForHookEvent("SessionEnd", undefined, undefined)).toBeUndefined();
  });
});
