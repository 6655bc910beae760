// A token typed by mistake where a value or a path was expected is never printed back: every error that echoes argv
// (unexpected argument, unknown option with its did-you-mean, unknown subcommand, a bad flag value, two spellings that
// differ, a token file that cannot be read) shows at most the token's prefix, in text and in --json; and a token given
// as --token-file is refused before it can become the name of a file.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { mintWebhookSecret } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import { mintRecoveryToken, mintToken } from "../../app/agent_computer/src/domain/identity/token.ts";
import { runBin } from "../helpers/bin.ts";

const agentToken = mintToken();
const recoveryToken = mintRecoveryToken();
const webhookSecret = mintWebhookSecret();

const cases: [label: string, secret: string, argv: string[]][] = [
  ["an unexpected argument", agentToken, ["agent-inbox-cli", "--agent-id", "a", agentToken]],
  ["--token-file given the token", agentToken, ["agent-inbox-cli", "--agent-id", "a", "--token-file", agentToken]],
  [
    "--recovery-token-file given the token",
    recoveryToken,
    ["register-agent-cli", "--agent-id", "a", "--role", "r", "--caps", "x", "--recovery-token-file", recoveryToken],
  ],
  [
    "--token-file given the token on a first check-in",
    agentToken,
    ["agent-checkin-cli", "--agent-id", "fresh", "--confirm", "--token-file", agentToken],
  ],
  ["an unknown option with a did-you-mean", agentToken, ["agent-inbox-cli", `--agent-idd=${agentToken}`]],
  ["a flag that takes no value given one", agentToken, ["agent-inbox-cli", `--json=${agentToken}`]],
  ["an unknown subcommand", agentToken, ["agent-identity-cli", agentToken]],
  ["help for an unknown subcommand", recoveryToken, ["agent-identity-cli", "help", recoveryToken]],
  ["a bad flag value quoted back", webhookSecret, ["agent-inbox-cli", "--agent-id", "a", "--wake-token", webhookSecret]],
  ["two spellings that differ", agentToken, ["register-agent-cli", "--agent-id", "a", "--name", agentToken]],
  ["a token inside a path that cannot be read", agentToken, ["agent-send-cli", "--body-file", `/nonexistent/${agentToken}`]],
];

describe("a token typed into argv by mistake", () => {
  const cwd = mkdtempSync(join(tmpdir(), "ac-token-echo-"));
  const env = { AGENT_COMPUTER_HOME: join(cwd, "state") };

  test.each(cases)("%s: refused, and the secret part appears nowhere in the output", async (_label, secret, [name, ...args]) => {
    const secretPart = secret.slice(secret.indexOf("_") + 1);
    for (const json of [false, true]) {
      const r = await runBin(name as string, json ? [...args, "--json"] : args, { env, cwd });
      const output = `${r.stdout}\n${r.stderr}`;
      expect(r.exitCode, output).toBe(2);
      expect(output).not.toContain(secretPart);
      expect(output).not.toContain(secretPart.slice(0, 8));
      if (json) expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "INVALID_INPUT" } });
      else expect(r.stderr).toMatch(/INVALID_INPUT/);
    }
    // Nothing was written under the token's name (a first check-in would otherwise put the new token there).
    expect(readdirSync(cwd).filter((f) => f !== "state")).toEqual([]);
  });

  test("the refusal of a token as --token-file says what to do instead", async () => {
    const r = await runBin("agent-inbox-cli", ["--agent-id", "a", "--token-file", agentToken], { env, cwd });
    expect(r.stderr).toContain("--token-file: is a token, not a file");
    expect(r.stderr).toContain("treat it as exposed");
  });
});
