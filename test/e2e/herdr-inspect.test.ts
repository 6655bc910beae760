// herdr-inspect-cli through bin/ against the Herdr double: status with integrations (also when no server runs),
// sessions, the topology tree, a bounded and escaped pane read; no lease, no store, nothing changed in Herdr.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { runBin } from "../helpers/bin.ts";

let fake: FakeHerdr;
let env: Record<string, string>;
const inspect = (args: string[], extra: Record<string, string> = {}) =>
  runBin("herdr-inspect-cli", args, { env: { ...env, ...extra } });
const errorCode = (stderr: string): string => (JSON.parse(stderr) as { error: { code: string } }).error.code;

beforeAll(async () => {
  fake = await startFakeHerdr({ timing: { scrollReadMs: 300 } });
  // No AGENT_COMPUTER_HOME, no controller id, no HERDR_PANE_ID: inspecting needs none of them.
  env = { ...fake.env, HOME: fake.dir };
});
afterAll(async () => {
  await fake?.stop();
});

describe("herdr-inspect-cli", () => {
  test("status reports the server and every integration; without a server it still answers, exit 0", async () => {
    writeFileSync(join(fake.dir, "integrations.json"), JSON.stringify({ claude: "current (v7)" }));
    mkdirSync(join(fake.dir, ".claude"), { recursive: true });
    writeFileSync(join(fake.dir, ".claude", "settings.json"), "{}");
    const up = await inspect(["status", "--json"]);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.json()).toMatchObject({
      server: { running: true, version: "0.8.2", protocol: 20, compatible: true },
      integrations: expect.arrayContaining([
        { label: "claude", state: "current (v7)", path: join(fake.dir, ".claude/settings.json") },
        expect.objectContaining({ label: "codex", state: "not installed" }),
      ]),
    });
    const down = await inspect(["status"], { HERDR_SOCKET_PATH: join(fake.dir, "none", "herdr.sock") });
    expect(down.exitCode, down.stderr).toBe(0);
    expect(down.stdout).toContain("herdr server: not running");
  });

  test("sessions lists the session this socket belongs to", async () => {
    const r = await inspect(["sessions", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual({ sessions: [{ name: "default", isDefault: true, running: true, socketPath: fake.socketPath }] });
  });

  test("topology shows workspaces, tabs, panes and agents, counts unnamed agents, escapes labels; changes nothing", async () => {
    const named = await fake.script({
      op: "createAgent",
      kind: "claude",
      cwd: "/tmp",
      name: "rev-1",
      label: "evil\u001b]0;x\u0007",
    });
    const unnamed = await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp", workspaceId: named.workspace_id });
    const shell = await fake.script({ op: "createShell", cwd: "/tmp", workspaceId: named.workspace_id });
    const before = await fake.state();
    const human = await inspect(["topology"]);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toContain(`${named.pane_id} rev-1 claude idle seq ${named.state_change_seq}`);
    expect(human.stdout).toContain(`${unnamed.pane_id} (unnamed) codex`);
    expect(human.stdout).toContain(`${shell.pane_id} shell`);
    expect(human.stdout).toContain("without a Herdr name");
    expect(human.stdout).not.toContain("\u001b");
    const json = (await inspect(["topology", "--workspace", named.workspace_id, "--json"])).json<{
      workspaces: unknown[];
      tabs: unknown[];
      panes: Array<{ paneId: string }>;
      agents: Array<{ name?: string; paneId: string }>;
    }>();
    expect(json.workspaces).toHaveLength(1);
    expect(json.tabs).toHaveLength(3);
    expect(json.panes.map((p) => p.paneId).sort()).toEqual([named.pane_id, unnamed.pane_id, shell.pane_id].sort());
    expect(json.agents.map((a) => a.paneId).sort()).toEqual([named.pane_id, unnamed.pane_id].sort());
    expect(await fake.state()).toEqual(before);
  });

  test("every field of every record is shown escaped: hostile text in any Herdr field forges no line (topology, sessions, status)", async () => {
    const hostile = "\nFORGED \u001b[31m\u202e";
    const shown = "\\nFORGED \\x1b[31m\\u202e";
    const evil = await startFakeHerdr();
    try {
      const agent = await evil.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "rev-1", label: "l" });
      await evil.script({ op: "createShell", cwd: "/tmp", workspaceId: agent.workspace_id, label: "s" });
      await evil.script({ op: "hostileFields", text: hostile });
      // `integration status` is Herdr's text, one line per integration: a newline there is a line of Herdr's own
      // (read as an unrecognised integration), so its fields get the hostile text without one.
      const inLine = "\u001b[31m\u202e";
      writeFileSync(join(evil.dir, "integrations.json"), JSON.stringify({ claude: `current${inLine}` }));
      const hostileEnv = { ...evil.env, HOME: `${evil.dir}${inLine}`, HERDR_SESSION: `s${hostile}` };
      // Herdr reports an integration as installed when its file is there (the claude one, under the hostile HOME).
      mkdirSync(join(hostileEnv.HOME, ".claude"), { recursive: true });
      writeFileSync(join(hostileEnv.HOME, ".claude", "settings.json"), "{}");
      const expectedLines = { topology: 6, sessions: 1, status: 8 };
      for (const [sub, lineCount] of Object.entries(expectedLines)) {
        const r = await runBin("herdr-inspect-cli", [sub], { env: hostileEnv });
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stdout, sub).not.toMatch(/^FORGED/m);
        expect(r.stdout.trimEnd().split("\n"), `${sub}: ${r.stdout}`).toHaveLength(lineCount);
        expect(r.stdout, sub).toContain(shown);
      }
      const status = await runBin("herdr-inspect-cli", ["status"], { env: hostileEnv });
      expect(status.stdout).toContain("claude: current\\x1b[31m\\u202e (");
      expect(status.stdout).toContain("\\x1b[31m\\u202e/.codex/hooks.json)");
      // Each id, label, name, kind and cwd of the tree carries the text, and each is escaped where it is shown.
      const topology = await runBin("herdr-inspect-cli", ["topology"], { env: hostileEnv });
      expect(topology.stdout.split(shown).length - 1).toBeGreaterThanOrEqual(12);
      const json = (await runBin("herdr-inspect-cli", ["topology", "--json"], { env: hostileEnv })).json<{
        workspaces: Array<{ workspaceId: string }>;
      }>();
      expect(json.workspaces[0]?.workspaceId).toBe(`${agent.workspace_id}${hostile}`);
    } finally {
      rmSync(`${evil.dir}\u001b[31m\u202e`, { recursive: true, force: true });
      await evil.stop();
    }
  });

  test("read is bounded by --lines and --max-bytes and escapes control characters; --json keeps the text", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "talker" });
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
    await fake.script({
      op: "setOutput",
      paneId: agent.pane_id,
      text: [...lines, "\u001b[2J\u001b]52;c;cHduZWQ=\u0007gotcha é"].join("\n"),
    });
    const human = await inspect(["read", "--pane", agent.pane_id, "--lines", "3"]);
    expect(human.exitCode, human.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting that no control character reaches the terminal
    expect(human.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(human.stdout).toContain("line 48\nline 49\n");
    expect(human.stdout).toContain("\\x1b[2J");
    expect(human.stdout).not.toContain("line 47");
    const json = (await inspect(["read", "--pane", agent.pane_id, "--max-bytes", "9", "--json"])).json<{
      text: string;
      bytes: number;
      truncated: boolean;
    }>();
    expect(json).toEqual({ pane_id: agent.pane_id, source: "visible", text: "gotcha é", lines: 1, bytes: 9, truncated: true });
  });

  test("read sends no input by default; --scrollback is the read that scrolls an alternate-screen agent", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp", name: "fullscreen", altScreen: true });
    await fake.script({ op: "setOutput", paneId: agent.pane_id, text: "on screen" });
    const plain = await inspect(["read", "--pane", agent.pane_id, "--json"]);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.json()).toMatchObject({ source: "visible", text: "on screen" });
    expect(await fake.inputs(agent.pane_id)).toEqual([]);
    const scrolled = await inspect(["read", "--pane", agent.pane_id, "--scrollback", "--json"]);
    expect(scrolled.exitCode, scrolled.stderr).toBe(0);
    expect(scrolled.json()).toMatchObject({ source: "recent", text: "on screen" });
    expect((await fake.inputs(agent.pane_id)).map((input) => input.kind)).toEqual(["mouse_wheel"]);
    const help = await inspect(["read", "--help"]);
    expect(help.stdout).toMatch(/--scrollback[\s\S]*SCROLLS THE AGENT/);
    expect(help.stdout).toContain("mouse-wheel");
  });

  test("status shows both Herdr versions and protocols, and the fix when they differ", async () => {
    const mismatched = await startFakeHerdr({ timing: { herdrVersion: "0.9.1", serverVersion: "0.8.2" } });
    try {
      const r = await runBin("herdr-inspect-cli", ["status"], { env: { ...mismatched.env, HOME: mismatched.dir } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("herdr server: running 0.8.2 (protocol 20)");
      expect(r.stdout).toContain("herdr CLI: 0.9.1 (protocol 22)");
      expect(r.stdout).toMatch(/NOT compatible: .*herdr server restart/);
      // Any command that needs the server says so too, with the fix.
      const topology = await runBin("herdr-inspect-cli", ["topology", "--json"], {
        env: { ...mismatched.env, HOME: mismatched.dir },
      });
      expect(topology.exitCode).toBe(8);
      const error = (JSON.parse(topology.stderr) as { error: { code: string; message: string; hint: string } }).error;
      expect(error).toMatchObject({ code: "UNAVAILABLE", message: expect.stringContaining("different protocols") });
      expect(error.hint).toMatch(/herdr server restart/);
    } finally {
      await mismatched.stop();
    }
  });

  test("status sees an integration whose client config was relocated (CLAUDE_CONFIG_DIR)", async () => {
    const relocated = join(fake.dir, "claude-elsewhere");
    mkdirSync(relocated, { recursive: true });
    writeFileSync(join(relocated, "settings.json"), "{}");
    const r = await inspect(["status", "--json"], { HOME: join(fake.dir, "empty-home"), CLAUDE_CONFIG_DIR: relocated });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<{ integrations: unknown[] }>().integrations).toContainEqual({
      label: "claude",
      state: "current (v7)",
      path: join(relocated, "settings.json"),
    });
  });

  test("bad flags are refused by name before Herdr is asked; an absent server is UNAVAILABLE", async () => {
    const asked = (await fake.requests()).length;
    const bad = await inspect(["read", "--pane", "--source", "--json"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--pane");
    const tooMany = await inspect(["read", "--pane", "w1:p1", "--lines", "5000", "--json"]);
    expect(tooMany.exitCode).toBe(2);
    expect(tooMany.stderr).toContain("--lines");
    expect((await fake.requests()).length).toBe(asked);
    const down = await inspect(["topology", "--json"], { HERDR_SOCKET_PATH: join(fake.dir, "none", "herdr.sock") });
    expect(errorCode(down.stderr)).toBe("UNAVAILABLE");
  });
});
