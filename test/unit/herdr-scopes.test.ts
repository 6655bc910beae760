// Pure rules of the Herdr coordination tools: literal scopes and their overlap, reviewer native arguments,
// and which request texts may be typed into a pane.
import { describe, expect, test } from "vitest";
import { messageProblem } from "../../app/agent_computer/src/cli/herdr/shared.ts";
import { nativeModelArgs } from "../../app/agent_computer/src/domain/herdr/reviewer.ts";
import { scopeClash, scopeProblem, scopesOverlap } from "../../app/agent_computer/src/domain/herdr/scopes.ts";

describe("scopes", () => {
  test.each(["src", "src/api", "docs/guide.md", "a/b/c/", ".github/workflows"])("%s is a literal scope", (scope) => {
    expect(scopeProblem(scope)).toBeUndefined();
  });
  test.each([
    "",
    "/etc",
    "../x",
    "src/../x",
    "src/./api",
    "src//api",
    "src/*",
    "src/**/x",
    "a?b",
    "[ab]",
    "{a,b}",
    "!x",
    "a\\b",
    "a\nb",
  ])("%j is refused", (scope) => {
    expect(scopeProblem(scope)).toBeDefined();
  });
  test("overlap is prefix by whole segments only", () => {
    expect(scopesOverlap("src", "src/api")).toBe(true);
    expect(scopesOverlap("src/api", "src")).toBe(true);
    expect(scopesOverlap("src/api", "src/api")).toBe(true);
    expect(scopesOverlap("src/api", "src/apis")).toBe(false);
    expect(scopesOverlap("src", "lib")).toBe(false);
  });
  test("owned clashes with owned or blocked either way; blocked alongside blocked is fine", () => {
    const held = { owned: ["src/api"], blocked: ["docs"] };
    expect(scopeClash({ owned: ["src/api/x"], blocked: [] }, held)).toEqual({ scope: "src/api/x", held: "src/api" });
    expect(scopeClash({ owned: ["docs/a.md"], blocked: [] }, held)).toEqual({ scope: "docs/a.md", held: "docs" });
    expect(scopeClash({ owned: ["lib"], blocked: ["src"] }, held)).toEqual({ scope: "src", held: "src/api" });
    expect(scopeClash({ owned: ["lib"], blocked: ["docs"] }, held)).toBeUndefined();
  });
});

describe("reviewer native arguments", () => {
  test("claude takes --model and --effort, in either spelling", () => {
    expect(nativeModelArgs("claude", ["--model", "opus", "--effort=high"])).toEqual(["--model", "opus", "--effort", "high"]);
    expect(nativeModelArgs("codex", [])).toEqual([]);
  });
  test.each([
    ["codex", ["--model", "o3"]],
    ["claude", ["--dangerously-skip-permissions"]],
    ["claude", ["--effort", "extreme"]],
    ["claude", ["--model", "opus; rm -rf /"]],
    ["claude", ["--model", "a", "--model", "b"]],
    ["claude", ["--model"]],
  ] as const)("%s %j is refused", (kind, words) => {
    expect(() => nativeModelArgs(kind, words)).toThrow(/NATIVE_ARGS/);
  });
});

describe("request text", () => {
  test("what Herdr would read as an option or what could drive a terminal is refused", () => {
    expect(messageProblem("Review PR 42,\nthen report.\tThanks")).toBeUndefined();
    expect(messageProblem("-rf")).toBeUndefined();
    expect(messageProblem("--session=x")).toMatch(/--session/);
    expect(messageProblem("  ")).toMatch(/empty/);
    expect(messageProblem("hi \u001b[2J")).toMatch(/control/);
    expect(messageProblem("x".repeat(65_537))).toMatch(/65536/);
  });
});
