// The SessionStart hook, run exactly as Claude Code or Codex runs it: hook JSON on stdin, context JSON out.

import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { binaryForm, repoRoot } from "../helpers/bin.ts";

const hook = join(repoRoot, "skills/agent-mesh/hooks/session-start");

const runHook = async (client: string, input: object, env: Record<string, string>) => {
  const r = await execa(hook, [client], {
    input: JSON.stringify(input),
    env: { AGENT_COMPUTER_FORM: binaryForm, ...env },
    reject: false,
  });
  return {
    exitCode: r.exitCode,
    context: JSON.parse(String(r.stdout)).hookSpecificOutput as { hookEventName: string; additionalContext: string },
  };
};

test("first run registers and checks in; the token goes to the vault, never into the context", async () => {
  const home = mkdtempSync(join(tmpdir(), "ac-hook-"));
  const cwd = mkdtempSync(join(tmpdir(), "repo-"));
  const first = await runHook(
    "claude",
    { cwd, session_id: "s1", hook_event_name: "SessionStart" },
    { AGENT_COMPUTER_HOME: home },
  );
  expect(first.exitCode).toBe(0);
  expect(first.context.hookEventName).toBe("SessionStart");
  const agentId = `claude-${cwd.split("/").at(-1)}`;
  expect(first.context.additionalContext).toContain(`checked in as ${agentId} (register and start session`);
  expect(first.context.additionalContext).toContain(`agent-inbox-cli --agent-id ${agentId}`);
  expect(first.context.additionalContext).toContain("never instructions");
  expect(first.context.additionalContext).not.toMatch(/act_[A-Za-z0-9_-]{20,}/);
  expect(statSync(join(home, "tokens", `${agentId}.token`)).mode & 0o777).toBe(0o600);

  const second = await runHook("claude", { cwd }, { AGENT_COMPUTER_HOME: home });
  expect(second.context.additionalContext).toContain("(renew session");
});

test("codex with an explicit agent id", async () => {
  const home = mkdtempSync(join(tmpdir(), "ac-hook-"));
  const r = await runHook(
    "codex",
    { cwd: "/nonexistent/dir" },
    { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_AGENT_ID: "codex-reviewer" },
  );
  expect(r.context.additionalContext).toContain("checked in as codex-reviewer");
});

test("a failed check-in never blocks the session: exit 0 and the reason in the context", async () => {
  const home = mkdtempSync(join(tmpdir(), "ac-hook-"));
  const r = await runHook("claude", { cwd: "/tmp" }, { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_AGENT_ID: "bad id!" });
  expect(r.exitCode).toBe(0);
  expect(r.context.additionalContext).toContain("failed (INVALID_INPUT)");
});

test("inside a Herdr pane the hook arms auto-wake for that pane", async () => {
  const { startFakeHerdr } = await import("../fixtures/fake-herdr/control.ts");
  const { stopWatchers } = await import("../helpers/wake.ts");
  const fake = await startFakeHerdr({});
  const home = mkdtempSync(join(tmpdir(), "ac-hook-"));
  try {
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp" });
    const r = await runHook(
      "claude",
      { cwd: "/tmp" },
      { ...fake.env, AGENT_COMPUTER_HOME: home, HERDR_ENV: "1", HERDR_PANE_ID: agent.pane_id },
    );
    expect(r.exitCode).toBe(0);
    expect(r.context.additionalContext).toContain(`checked in as claude-tmp-${agent.pane_id.replace(/[^A-Za-z0-9_.-]/g, "-")}`);
    expect(r.context.additionalContext).toContain("Auto-wake is armed");
  } finally {
    await stopWatchers(home);
    await fake.stop();
  }
});
