// Every kind of secret this project mints is recognised by the redaction on stderr, and nothing else is.
import { describe, expect, test } from "vitest";
import { looksLikeToken, redactTokens } from "../../app/agent_computer/src/cli/kernel/redact-tokens.ts";
import { mintWebhookSecret } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import { mintRecoveryToken, mintToken } from "../../app/agent_computer/src/domain/identity/token.ts";

const MINTS = { "agent token": mintToken, "recovery token": mintRecoveryToken, "webhook secret": mintWebhookSecret };

describe.each(Object.entries(MINTS))("a minted %s", (_kind, mint) => {
  test("is replaced by its prefix and …(redacted) wherever it stands in a message", () => {
    for (let i = 0; i < 200; i++) {
      const secret = mint();
      const prefix = secret.slice(0, secret.indexOf("_") + 1);
      for (const message of [
        `unexpected argument: ${secret}`,
        `unknown option '--agent-idd=${secret}'`,
        `--token-file: cannot read "${secret}"`,
        `unknown subcommand '${secret}'; valid: show`,
        secret,
      ]) {
        const redacted = redactTokens(message);
        expect(redacted).toBe(message.replace(secret, `${prefix}…(redacted)`));
        expect(redacted).not.toContain(secret.slice(prefix.length, prefix.length + 8));
      }
      expect(looksLikeToken(secret)).toBe(true);
      expect(looksLikeToken(`/home/me/${secret}`)).toBe(true);
    }
  });
});

describe("what is not a token", () => {
  test("ids, agent names, paths and words with the same letters are left alone", () => {
    for (const text of [
      "act_builder",
      "acr_short_name",
      "react_to_this_message_please_now",
      "exact_abcdefghijklmnopqrstuvwxyz",
      "msg_0190a4b2c3d4e5f60718293a4b5c6d7e",
      "/home/me/agent.token",
      "whsec_ is the prefix of a webhook secret",
    ]) {
      expect(redactTokens(text)).toBe(text);
      expect(looksLikeToken(text)).toBe(false);
    }
  });
});
