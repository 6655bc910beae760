// The pure rule of tmux auto-wake (wake/tmux-pane.ts judgeTmuxPane): idle only when the hooks said idle, nobody
// typed or printed for the quiet time, and the pane is not in a mode; a gone or different process ends the arming.
import { describe, expect, test } from "vitest";
import type { TmuxPaneFacts } from "../../app/agent_computer/src/adapters/tmux.ts";
import type { AgentState } from "../../app/agent_computer/src/local/agent-state.ts";
import { judgeTmuxPane, tmuxQuietMsFrom } from "../../app/agent_computer/src/wake/tmux-pane.ts";

const NOW = 1_800_000_000_000;
const arming = { bin: "/usr/bin/tmux", socket: "/tmp/s", pane: "%3", pane_pid: 42, command: "claude" };
const facts = (over: Partial<TmuxPaneFacts> = {}): TmuxPaneFacts => ({
  paneId: "%3",
  panePid: 42,
  currentCommand: "claude",
  inMode: false,
  dead: false,
  sessionId: "$0",
  windowActivityMs: NOW - 60_000,
  clientActivityMs: 0,
  ...over,
});
const judge = (f: TmuxPaneFacts | undefined, state: AgentState | null) =>
  judgeTmuxPane({ facts: f, arming, state: state ? { state, at: NOW, event: "Stop" } : undefined, now: NOW, quietMs: 5_000 });

describe("judgeTmuxPane", () => {
  test.each([
    ["idle and quiet", facts(), "idle", { kind: "status", status: "idle" }],
    ["working", facts(), "working", { kind: "status", status: "working" }],
    ["blocked on a permission", facts(), "blocked", { kind: "status", status: "blocked" }],
    ["no hook state", facts(), null, { kind: "status", status: "unknown" }],
    ["copy mode", facts({ inMode: true }), "idle", { kind: "status", status: "blocked", why: "copy_mode" }],
    ["output 4 s ago", facts({ windowActivityMs: NOW - 4_000 }), "idle", { kind: "status", why: "recent_activity" }],
    ["a key from a client 1 s ago", facts({ clientActivityMs: NOW - 1_000 }), "idle", { kind: "status", why: "recent_activity" }],
    ["pane gone", undefined, "idle", { kind: "gone", reason: "agent_left" }],
    ["pane dead", facts({ dead: true }), "idle", { kind: "gone", reason: "agent_left" }],
    ["another process in the pane", facts({ panePid: 43 }), "idle", { kind: "gone", reason: "agent_replaced" }],
    ["back at the shell", facts({ currentCommand: "bash" }), "idle", { kind: "gone", reason: "agent_replaced" }],
  ] as const)("%s", (_name, f, state, expected) => {
    expect(judge(f, state)).toMatchObject(expected);
  });

  test("the quiet time is bounded: a typo cannot turn the rule off", () => {
    expect(tmuxQuietMsFrom({})).toBe(5_000);
    expect(tmuxQuietMsFrom({ AGENT_COMPUTER_WAKE_TMUX_QUIET_MS: "0" })).toBe(5_000);
    expect(tmuxQuietMsFrom({ AGENT_COMPUTER_WAKE_TMUX_QUIET_MS: "2500" })).toBe(2_500);
  });
});
