// Where a mesh command finds the agent token: --token-file, then RELAY_AGENT_TOKEN, then the 0600 vault.
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";

const home = mkdtempSync(join(tmpdir(), "ac-tokens-"));
const env = { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: undefined, RELAY_AGENT_TOKEN: undefined };
const wrongFile = join(home, "wrong.token");
const rightFile = join(home, "right.token");

const inbox = (args: string[], extraEnv: Record<string, string> = {}) =>
  runBin("agent-inbox-cli", ["--agent-id", "src-agent", "--json", ...args], { env: { ...env, ...extraEnv } });
const errorCode = (stderr: string): string => (JSON.parse(stderr) as { error: { code: string } }).error.code;

beforeAll(async () => {
  const first = await runBin("agent-checkin-cli", ["--agent-id", "src-agent", "--confirm", "--json"], { env });
  expect(first.exitCode).toBe(0);
  writeFileSync(rightFile, `${first.json<{ agent_token: string }>().agent_token}\n`, { mode: 0o600 });
  writeFileSync(wrongFile, "act_not-the-token\n", { mode: 0o600 });
});

test("the first check-in leaves the token in the vault, 0600, and a command with no other source uses it", async () => {
  expect(statSync(join(home, "tokens", "src-agent.token")).mode & 0o777).toBe(0o600);
  const r = await inbox([]);
  expect(r.exitCode).toBe(0);
  expect(r.json<{ count: number }>().count).toBe(0);
});

test("RELAY_AGENT_TOKEN comes before the vault", async () => {
  const r = await inbox([], { RELAY_AGENT_TOKEN: "act_not-the-token" });
  expect(r.exitCode).toBe(3);
  expect(errorCode(r.stderr)).toBe("AUTH_FAILED");
});

test("--token-file comes before RELAY_AGENT_TOKEN and the vault", async () => {
  expect((await inbox(["--token-file", rightFile], { RELAY_AGENT_TOKEN: "act_not-the-token" })).exitCode).toBe(0);
  const wrong = await inbox(["--token-file", wrongFile]);
  expect(errorCode(wrong.stderr)).toBe("AUTH_FAILED");
});

test("an unreadable --token-file is a usage error naming the flag and the path, never falling back", async () => {
  const missing = join(home, "missing.token");
  const r = await inbox(["--token-file", missing]);
  expect(r.exitCode).toBe(2);
  expect(JSON.parse(r.stderr)).toEqual({
    error: {
      code: "INVALID_INPUT",
      message: `--token-file: cannot read a token from ${missing}`,
      hint: "usage: agent-inbox-cli --agent-id <id> [options]; see agent-inbox-cli --help",
    },
  });
});
