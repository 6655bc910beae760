// A token typed where a secret is never meaningful (a search query, a thread label, a role, a status line, a name) is
// refused before anything is read or written, with INVALID_INPUT naming the flag, and is never printed back: not in
// the error, not lowercased in a search's word list, not to a recipient as a thread label.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mintWebhookSecret } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import { mintRecoveryToken, mintToken } from "../../app/agent_computer/src/domain/identity/token.ts";
import { runBin } from "../helpers/bin.ts";

const token = mintToken();
const recovery = mintRecoveryToken();
const secret = mintWebhookSecret();
// Channel names are lowercase: a lowercase token-shaped name is refused all the same.
const lowercase = `act_${"k3".repeat(12)}`;

const cases: [flag: string, leaked: string, argv: string[]][] = [
  ["--query", token, ["agent-search-cli", "--agent-id", "alice", "--query", token]],
  ["--query", token, ["agent-search-cli", "--agent-id", "alice", "--query", `deploy ${token} rollback`]],
  ["--thread", token, ["agent-send-cli", "--agent-id", "alice", "--to", "bob", "--body", "hi", "--thread", token]],
  ["--thread", recovery, ["agent-thread-cli", "--agent-id", "alice", "--thread", recovery]],
  ["--role", token, ["agent-checkin-cli", "--agent-id", "alice", "--role", token, "--confirm"]],
  ["--status", secret, ["agent-checkin-cli", "--agent-id", "alice", "--status", `working on ${secret}`, "--confirm"]],
  ["--repo", token, ["agent-checkin-cli", "--agent-id", "alice", "--repo", token, "--confirm"]],
  ["--capabilities", token, ["agent-checkin-cli", "--agent-id", "alice", "--capabilities", token, "--confirm"]],
  ["--agent-id", token, ["agent-inbox-cli", "--agent-id", token]],
  ["--role", token, ["agent-send-cli", "--agent-id", "alice", "--broadcast", "--role", token, "--body", "hi"]],
  ["--role", token, ["register-agent-cli", "--agent-id", "carol", "--role", token, "--caps", "x"]],
  ["--description", token, ["register-agent-cli", "--agent-id", "carol", "--role", "r", "--caps", "x", "--description", token]],
  ["--host-id", token, ["register-agent-cli", "--agent-id", "carol", "--role", "r", "--caps", "x", "--host-id", token]],
  ["--title", token, ["agent-task-cli", "post", "--agent-id", "alice", "--title", token, "--body", "b", "--require-cap", "x"]],
  ["--channel", lowercase, ["agent-channel-cli", "create", "--agent-id", "alice", "--channel", lowercase]],
  ["--herdr-pane", token, ["agent-checkin-cli", "--agent-id", "alice", "--herdr-pane", token, "--confirm"]],
  [
    "--idempotency-key",
    token,
    ["agent-send-cli", "--agent-id", "alice", "--to", "bob", "--body", "hi", "--idempotency-key", token],
  ],
  ["--label", token, ["create-automation-job-cli", "--agent-id", "alice", "--dir", ".", "--label", token]],
];

describe("a token where a secret is never meaningful", () => {
  const dir = mkdtempSync(join(tmpdir(), "ac-token-refusal-"));
  const env = { AGENT_COMPUTER_HOME: join(dir, "state") };

  beforeAll(async () => {
    for (const agent of ["alice", "bob"]) {
      const r = await runBin("agent-checkin-cli", ["--agent-id", agent, "--role", "builder", "--confirm"], { env });
      expect(r.exitCode, r.stderr).toBe(0);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const titled = cases.map(([flag, leaked, argv], i) => [`${i + 1}. ${argv[0]} ${flag}`, flag, leaked, argv] as const);
  test.each(titled)(
    "%s: refused by name, and the secret appears nowhere, in any case",
    async (_title, flag, leaked, [name, ...args]) => {
      const secretPart = leaked.slice(leaked.indexOf("_") + 1);
      for (const json of [false, true]) {
        const r = await runBin(name as string, json ? [...args, "--json"] : args, { env, cwd: dir });
        const output = `${r.stdout}\n${r.stderr}`.toLowerCase();
        expect(r.exitCode, output).toBe(2);
        expect(r.stderr).toContain(`${flag}: is a token`);
        expect(output).not.toContain(secretPart.slice(0, 8).toLowerCase());
        if (json) expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "INVALID_INPUT" } });
      }
    },
  );

  test("nothing of a refused call was written: bob got no message, alice's role and status are as they were", async () => {
    const inbox = await runBin("agent-inbox-cli", ["--agent-id", "bob", "--json"], { env });
    expect(inbox.exitCode, inbox.stderr).toBe(0);
    expect(JSON.stringify(inbox.json())).not.toContain("act_");
    expect(inbox.json<{ messages: unknown[] }>().messages).toEqual([]);
    const list = await runBin("agents-list-cli", ["--json"], { env });
    const agents = list.json<{ agents: Array<{ agent_id: string; role: string; status: string | null }> }>().agents;
    expect(agents.map((a) => a.agent_id).sort()).toEqual(["alice", "bob"]);
    expect(agents.find((a) => a.agent_id === "alice")).toMatchObject({ role: "builder", status: null });
  });

  test("words and labels that only resemble a token are still taken", async () => {
    const sent = await runBin(
      "agent-send-cli",
      ["--agent-id", "alice", "--to", "bob", "--body", "act_ now", "--thread", "act_short"],
      { env },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const found = await runBin("agent-search-cli", ["--agent-id", "alice", "--query", "act_ now"], { env });
    expect(found.exitCode, found.stderr).toBe(0);
    expect(found.stdout).toContain("1 message(s)");
  });
});
