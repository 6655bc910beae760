import { describe, expect, it } from "vitest";
import { fitJson, fitText, OUTPUT_BUDGET_BYTES } from "../../app/agent_computer/src/cli/kernel/output-budget.ts";
import {
  decodeCursor,
  encodeCursor,
  nextPageCommand,
  pageOf,
  pagingFooter,
} from "../../app/agent_computer/src/cli/kernel/paging.ts";
import { isAppError } from "../../app/agent_computer/src/errors.ts";

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (isAppError(error)) return `${error.code} ${error.message}`;
    throw error;
  }
  return "accepted";
};

describe("paging kernel: cursors", () => {
  const query = { role: "reviewer", status: "live" };

  it("gives back the position it was made from, for the same command and query", () => {
    const cursor = encodeCursor("agents-list-cli", query, ["builder-7", 3]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor("agents-list-cli", { status: "live", role: "reviewer" }, cursor, ["string", "number"])).toEqual([
      "builder-7",
      3,
    ]);
  });

  it("refuses a malformed, foreign, other-query or misshapen cursor as INVALID_INPUT naming --cursor", () => {
    const cursor = encodeCursor("agents-list-cli", query, ["builder-7"]);
    expect(refusal(() => decodeCursor("agents-list-cli", query, "not-a-cursor", ["string"]))).toMatch(
      /^INVALID_INPUT --cursor: is not a cursor/,
    );
    expect(refusal(() => decodeCursor("agent-channel-cli list", query, cursor, ["string"]))).toMatch(
      /^INVALID_INPUT --cursor: was printed by agents-list-cli/,
    );
    expect(refusal(() => decodeCursor("agents-list-cli", { ...query, role: "builder" }, cursor, ["string"]))).toMatch(
      /^INVALID_INPUT --cursor: was printed for other filters/,
    );
    expect(refusal(() => decodeCursor("agents-list-cli", query, cursor, ["number"]))).toMatch(/^INVALID_INPUT --cursor:/);
    const forged = Buffer.from(JSON.stringify({ c: "agents-list-cli", q: "x", p: "a" })).toString("base64url");
    expect(refusal(() => decodeCursor("agents-list-cli", query, forged, ["string"]))).toMatch(/^INVALID_INPUT --cursor:/);
  });

  it("pages rows fetched with one extra: a cursor only when more follow", () => {
    const next = (row: string) => encodeCursor("x", {}, [row]);
    const more = pageOf(["a", "b", "c"], 2, next, 7);
    expect(more.rows).toEqual(["a", "b"]);
    expect(decodeCursor("x", {}, more.next_cursor as string, ["string"])).toEqual(["b"]);
    expect(more.not_shown).toBe(7);
    expect(pageOf(["a", "b"], 2, next)).toEqual({ rows: ["a", "b"], next_cursor: null, not_shown: 0 });
  });
});

describe("paging kernel: the next command", () => {
  it("repeats the command as typed, replacing any earlier --cursor, quoted for a shell", () => {
    expect(nextPageCommand("agents-list-cli", ["--role", "code reviewer", "--cursor", "old", "--limit", "5"], "NEW")).toBe(
      "agents-list-cli --role 'code reviewer' --limit 5 --cursor NEW",
    );
    expect(nextPageCommand("agent-channel-cli", ["list", "--cursor=old"], "NEW")).toBe("agent-channel-cli list --cursor NEW");
    expect(nextPageCommand("x", ["a", "--", "--cursor"], "C")).toBe("x a --cursor C -- --cursor");
  });

  it("is a footer line with the count when more were left out, none on the last page", () => {
    expect(pagingFooter({ next_cursor: "C1", not_shown: 40 }, "agents-list-cli", [])).toBe(
      "40 more not shown: agents-list-cli --cursor C1",
    );
    expect(pagingFooter({ next_cursor: "C1", not_shown: null }, "agents-list-cli", [])).toBe(
      "more not shown: agents-list-cli --cursor C1",
    );
    expect(pagingFooter({ next_cursor: null, not_shown: 0 }, "agents-list-cli", [])).toBeUndefined();
  });
});

describe("output budget", () => {
  it("cuts text over the budget at a line, says how many lines, and leaves room for the footer", () => {
    const text = Array.from({ length: 2000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n");
    const fitted = fitText(text, OUTPUT_BUDGET_BYTES, 200);
    expect(Buffer.byteLength(`${fitted}\n`) + 200).toBeLessThanOrEqual(OUTPUT_BUDGET_BYTES);
    const last = fitted.split("\n").at(-1) as string;
    const kept = fitted.split("\n").length - 1;
    expect(last).toContain(`${2000 - kept} more line(s) cut at the 16 KB output budget`);
    expect(fitText("short")).toBe("short");
  });

  it("shortens the longest JSON list from its end and says so in output_cut", () => {
    const doc = { agents: Array.from({ length: 1000 }, (_, i) => ({ agent_id: `a-${i}`, role: "r".repeat(30) })), note: "n" };
    const text = fitJson(doc);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(OUTPUT_BUDGET_BYTES);
    const parsed = JSON.parse(text) as { agents: { agent_id: string }[]; output_cut: { not_shown: { agents: number } } };
    expect(parsed.agents[0]?.agent_id).toBe("a-0");
    expect(parsed.agents.length + parsed.output_cut.not_shown.agents).toBe(1000);
    expect(JSON.parse(fitJson({ a: [1, 2] }))).toEqual({ a: [1, 2] });
  });
});
