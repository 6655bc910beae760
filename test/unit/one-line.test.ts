// One rule for one-line free text in every family (roles, statuses, purposes, references).
import { describe, expect, test } from "vitest";
import { oneLine } from "../../app/agent_computer/src/cli/kernel/one-line.ts";
import { checkinOptionsSchema } from "../../app/agent_computer/src/cli/mesh/agent-checkin-cli.ts";

describe("oneLine", () => {
  const role = oneLine(64, { min: 1 });

  test("plain text, punctuation and non-Latin letters pass", () => {
    for (const text of ["builder", "reviews PR 12: the parser (v2)", "Überprüfer — レビュー"]) {
      expect(role.safeParse(text).success).toBe(true);
    }
  });

  test("newlines, tabs, escapes, DEL and C1 controls are refused with one message", () => {
    for (const text of ["a\nb", "a\rb", "a\tb", "\u001b]52;c;cHduZWQ=\u0007", "a\u007fb", "a\u009b2Jb"]) {
      const result = role.safeParse(text);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe("must be one line without control characters");
    }
  });

  test("the bounds hold", () => {
    expect(role.safeParse("").success).toBe(false);
    expect(role.safeParse("x".repeat(64)).success).toBe(true);
    expect(role.safeParse("x".repeat(65)).success).toBe(false);
  });

  test("a check-in role carrying terminal escapes never reaches the store", () => {
    const parsed = checkinOptionsSchema.safeParse({ agentId: "evil", role: "\u001b]0;PWNED\u0007\u001b[2J", confirm: true });
    expect(parsed.success).toBe(false);
  });
});
