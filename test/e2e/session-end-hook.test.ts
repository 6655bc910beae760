// The SessionEnd hook, run exactly as Claude Code or Codex runs it (hook JSON on stdin), after the SessionStart hook
// checked the same session in: the directory stops showing the session as alive at once, mail it had not read
// bounces to its sender, and the hook is silent and exits 0 whatever happens.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { binaryForm, repoRoot, runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const hooks = join(repoRoot, "skills/agent-mesh/hooks");
const tag = (sessionId: string) => createHash("sha256").update(sessionId).digest("hex").slice(0, 8);

interface Listed {
  agent_id: string;
  alive: boolean;
}

describe.each(storeNames)("session-end hook [%s]", (storeName) => {
  let target: StoreTarget;
  let dir: string;
  let sender: TestAgent;

  const runHook = async (name: "session-start" | "session-end", client: string, input: object) =>
    execa(join(hooks, name), [client], {
      input: JSON.stringify(input),
      env: { ...target.env, AGENT_COMPUTER_FORM: binaryForm, PATH: "/usr/bin:/bin" },
      reject: false,
    });
  const listed = async (agentId: string, stale: boolean): Promise<Listed | undefined> => {
    const list = await runBin("agents-list-cli", ["--json", ...(stale ? ["--include-stale"] : [])], { env: target.env });
    expect(list.exitCode, list.stderr).toBe(0);
    return list.json<{ agents: Listed[] }>().agents.find((a) => a.agent_id === agentId);
  };

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    dir = mkdtempSync(join(tmpdir(), "ac-session-end-"));
    sender = await checkInAgent(target.env, dir, "sender-q7", ["--role", "builder"]);
  });
  afterAll(async () => {
    await target?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test.each(["claude", "codex"])(
    "%s: the closed session leaves the directory at once; its unread mail bounces",
    async (client) => {
      const sessionId = `5e55-${client}-0001`;
      const cwd = mkdtempSync(join(dir, "repo-"));
      const agentId = `${client}-${cwd.split("/").at(-1)}-${tag(sessionId)}`;
      const started = await runHook("session-start", client, { cwd, session_id: sessionId, hook_event_name: "SessionStart" });
      expect(started.exitCode).toBe(0);
      expect(String(started.stdout)).toContain(`checked in as ${agentId} `);
      expect((await listed(agentId, false))?.alive).toBe(true);
      const mail = await runBin(
        "agent-send-cli",
        ["--from", sender.id, "--token-file", sender.tokenFile, "--to", agentId, "--body", "unread-before-close"],
        { env: target.env },
      );
      expect(mail.exitCode, mail.stderr).toBe(0);

      const ended = await runHook("session-end", client, {
        cwd,
        session_id: sessionId,
        hook_event_name: "SessionEnd",
        reason: "prompt_input_exit",
      });
      expect(ended.exitCode).toBe(0);
      expect(String(ended.stdout)).toBe("");
      expect(String(ended.stderr)).toBe("");
      expect(await listed(agentId, false)).toBeUndefined();
      expect((await listed(agentId, true))?.alive).toBe(false);

      const after = await runBin(
        "agent-send-cli",
        ["--from", sender.id, "--token-file", sender.tokenFile, "--to", agentId, "--body", "after-close", "--json"],
        { env: target.env },
      );
      expect(after.stdout).toContain("not_checked_in");
      const bounces = await runBin("agent-inbox-cli", ["--agent-id", sender.id, "--token-file", sender.tokenFile, "--json"], {
        env: target.env,
      });
      const notices = bounces.json<{ messages: { kind: string; body: string }[] }>().messages.filter((m) => m.kind === "bounce");
      expect(notices.some((m) => m.body.includes(agentId))).toBe(true);

      // Run again (a second SessionEnd, or one after expiry): nothing to end, still silent and exit 0.
      const again = await runHook("session-end", client, { cwd, session_id: sessionId, hook_event_name: "SessionEnd" });
      expect(again.exitCode).toBe(0);
      expect(String(again.stdout)).toBe("");
    },
  );

  test("a session that never checked in, or input that is not JSON: silent, exit 0, nothing changes", async () => {
    const cwd = mkdtempSync(join(dir, "repo-"));
    const never = await runHook("session-end", "claude", { cwd, session_id: "never-started" });
    expect([never.exitCode, String(never.stdout), String(never.stderr)]).toEqual([0, "", ""]);
    const garbage = await execa(join(hooks, "session-end"), ["claude"], {
      input: "{not json",
      env: { ...target.env, AGENT_COMPUTER_FORM: binaryForm, PATH: "/usr/bin:/bin" },
      reject: false,
    });
    expect([garbage.exitCode, String(garbage.stdout)]).toEqual([0, ""]);
    expect((await listed(sender.id, false))?.alive).toBe(true);
  });
});

describe("agent-checkout-cli", () => {
  test("without --confirm it previews and changes nothing; with it the session ends; again: action none", async () => {
    const target = await createStoreTarget("sqlite");
    const dir = mkdtempSync(join(tmpdir(), "ac-checkout-"));
    try {
      const agent = await checkInAgent(target.env, dir, "leaver-1", []);
      const as = ["--agent-id", agent.id, "--token-file", agent.tokenFile];
      const preview = await runBin("agent-checkout-cli", [...as, "--json"], { env: target.env });
      expect(preview.json()).toMatchObject({ action: "end_session", preview: true });
      const inbox = await runBin("agent-inbox-cli", as, { env: target.env });
      expect(inbox.exitCode).toBe(0);
      const done = await runBin("agent-checkout-cli", [...as, "--confirm"], { env: target.env });
      expect(done.stdout).toMatch(/^leaver-1: checked out; session ses_\S+ ended at \S+\n$/);
      const gone = await runBin("agent-inbox-cli", as, { env: target.env });
      expect(gone.exitCode).toBe(4);
      expect(gone.stderr).toContain("NOT_CHECKED_IN");
      const again = await runBin("agent-checkout-cli", [...as, "--confirm", "--json"], { env: target.env });
      expect(again.json()).toEqual({ agent_id: "leaver-1", action: "none", session_id: null, ended_at: null });
      const wrong = await runBin("agent-checkout-cli", ["--agent-id", agent.id, "--confirm"], {
        env: { ...target.env, RELAY_AGENT_TOKEN: "act_not-the-right-token-000000000000000000" },
      });
      expect(wrong.exitCode).toBe(3);
    } finally {
      await target.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
