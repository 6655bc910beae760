// The SessionStart hook inside the real Claude Code client (pinned in test-clients/), offline: the client talks
// to a scripted Messages API on loopback, in a scratch HOME set up by the README's own install lines (the
// agent-mesh Skill linked, the hook in settings). Two sessions start in one directory; the scripted model runs
// the inbox command the hook's context names, through the client's own Bash tool, with bin/ not on PATH.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CLAUDE, jsonLines, offlineClaudeEnv, readmeBlocks, runClient } from "../helpers/agent-clients.ts";
import { binaryForm, repoRoot, runBin } from "../helpers/bin.ts";
import {
  type MessagesRequest,
  type ScriptedReply,
  startScriptedMessagesApi,
  textsOf,
  toolResultsOf,
} from "../helpers/scripted-messages-api.ts";

const CONTEXT = /SessionStart hook additional context: Agent Mesh: this session is checked in as ([A-Za-z0-9_.-]+) /;
const INBOX_COMMAND = /Read messages with: (.+?) \(see /;

/** The model: run the inbox command the hook's context names, then stop; side requests (no Bash tool) get text. */
const model = (request: MessagesRequest): ScriptedReply => {
  if (!request.tools?.some((tool) => tool.name === "Bash")) return { text: "ok" };
  if (toolResultsOf(request).length > 0) return { text: "inbox read" };
  const command = INBOX_COMMAND.exec(textsOf(request).join("\n"))?.[1];
  return command ? { tool: "Bash", input: { command, description: "read my Agent Mesh inbox" } } : { text: "no context" };
};

const api = startScriptedMessagesApi(model);
afterAll(() => api.stop());

const root = mkdtempSync(join(tmpdir(), "ac-claude-"));
const home = join(root, "home");
const project = join(root, "project");
const state = join(root, "state");
mkdirSync(project, { recursive: true });

beforeAll(async () => {
  // Installed exactly as the README says: its shell lines link the Skill, its settings install the hook.
  const [link] = readmeBlocks("sh");
  const [settings] = readmeBlocks("json");
  await execa("sh", ["-c", link as string], { env: { HOME: home, PATH: "/usr/bin:/bin" }, extendEnv: false });
  writeFileSync(
    join(home, ".claude", "settings.json"),
    // Running as root refuses bypassPermissions; an allow rule is what lets the scripted Bash call run.
    JSON.stringify({ ...JSON.parse(settings as string), permissions: { allow: ["Bash"] } }),
  );
});

// bin/ deliberately absent from PATH: the context must name a command that works anyway.
const env = offlineClaudeEnv(home, root, api.url, { AGENT_COMPUTER_HOME: state, AGENT_COMPUTER_FORM: binaryForm });

/** One `claude -p` session in the project directory; returns its session id and the requests it made. */
const session = async (): Promise<{ sessionId: string; requests: MessagesRequest[] }> => {
  const first = api.requests.length;
  const result = await runClient(CLAUDE, ["-p", "check your Agent Mesh inbox", "--output-format", "stream-json", "--verbose"], {
    cwd: project,
    env,
  });
  const { output } = result;
  expect(result.exitCode, output).toBe(0);
  const lines = jsonLines<{ type: string; subtype?: string; session_id?: string; is_error?: boolean }>(result.stdout);
  const init = lines.find((line) => line.type === "system" && line.subtype === "init");
  expect(init?.session_id, output).toMatch(/^[0-9a-f-]{36}$/);
  expect(lines.find((line) => line.type === "result")?.is_error, output).toBe(false);
  return { sessionId: init?.session_id as string, requests: api.requests.slice(first) };
};

test("two Claude Code sessions in one directory check in as two agents, each runs its own inbox command, and each checks out when it ends", {
  timeout: 360_000,
}, async () => {
  const sessions = [await session(), await session()];

  const agentIds = sessions.map(({ sessionId, requests }) => {
    const main = requests.filter((request) => request.tools?.some((tool) => tool.name === "Bash"));
    expect(main.length).toBeGreaterThanOrEqual(2);
    const shown = textsOf(main[0] as MessagesRequest).join("\n");
    const agentId = CONTEXT.exec(shown)?.[1];
    // The id the README documents: client, directory, 8 hex digits of SHA-256 of the session id.
    expect(agentId).toBe(`claude-project-${createHash("sha256").update(sessionId).digest("hex").slice(0, 8)}`);
    const command = INBOX_COMMAND.exec(shown)?.[1];
    expect(command).toBe(`${join(repoRoot, "bin", "agent-inbox-cli")} --agent-id ${agentId}`);
    // The Skill's listing line reached the model too.
    expect(shown).toContain("- agent-mesh: When other agents share this machine or project");
    // The command worked from the client's own shell: the tool result is that agent's inbox.
    const ran = main.flatMap(toolResultsOf).join("\n");
    expect(ran).toContain(`${agentId}: 0 unacknowledged message(s)`);
    return agentId as string;
  });
  expect(new Set(agentIds).size).toBe(2);

  // Each session checked in (listed with its repo) and, once `claude -p` ended it, checked out by the README's
  // SessionEnd hook: not alive any more, long before its ttl.
  const list = await runBin("agents-list-cli", ["--json", "--include-stale"], { env: { AGENT_COMPUTER_HOME: state } });
  expect(list.exitCode, list.stderr).toBe(0);
  const listed = list.json<{ agents: Array<{ agent_id: string; alive: boolean; repo: string }> }>().agents;
  for (const agentId of agentIds) {
    expect(listed.find((agent) => agent.agent_id === agentId)).toMatchObject({ alive: false, repo: "project" });
  }
});
