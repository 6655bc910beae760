// The one neutralising rule for text shown on a terminal (terminal-text.ts), checked over the whole class of
// characters a terminal or a bidi-aware renderer acts on instead of showing, one code point at a time.
import { describe, expect, test } from "vitest";
import { neutralize, neutralizeFields, neutralizeLine, safeJson } from "../../app/agent_computer/src/terminal-text.ts";

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Every character that must never reach a terminal raw, by the class it belongs to. */
const CLASSES: Record<string, number[]> = {
  "C0 controls except newline and tab": range(0x00, 0x1f).filter((c) => c !== 0x0a && c !== 0x09),
  DEL: [0x7f],
  "C1 controls (incl. CSI U+009B)": range(0x80, 0x9f),
  "bidi embeddings, overrides and isolates": [...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
  "bidi marks": [0x200e, 0x200f, 0x061c],
  "zero-width characters": [...range(0x200b, 0x200d), 0x2060, 0xfeff],
  "line and paragraph separators": [0x2028, 0x2029],
  "invisible tag characters": [0xe0001, ...range(0xe0020, 0xe007f)],
};

/** The escape a reader sees: \x1b for a byte-sized code point, \u202e in the BMP, \u{e0041} beyond. */
const escapeOf = (code: number): string =>
  code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : code <= 0xffff
      ? `\\u${code.toString(16).padStart(4, "0")}`
      : `\\u{${code.toString(16)}}`;

describe.each(Object.entries(CLASSES))("%s", (_name, codes) => {
  test("each one becomes its visible escape in a block and in a line, never dropped", () => {
    for (const code of codes) {
      const ch = String.fromCodePoint(code);
      expect(neutralize(`a${ch}b`), `U+${code.toString(16)}`).toBe(`a${escapeOf(code)}b`);
      expect(neutralizeLine(`a${ch}b`), `U+${code.toString(16)}`).toBe(`a${escapeOf(code)}b`);
    }
  });

  test("in --json they are \\u escapes: the parsed value is exact, the bytes hold none of them", () => {
    const value = { text: codes.map((c) => String.fromCodePoint(c)).join("") };
    for (const indent of [undefined, 2]) {
      const json = safeJson(value, indent);
      for (const code of codes) expect(json.includes(String.fromCodePoint(code)), `U+${code.toString(16)}`).toBe(false);
      expect(JSON.parse(json)).toEqual(value);
    }
  });
});

describe("what stays as it is", () => {
  test("a block keeps newlines and tabs; a line shows a newline as \\n and a tab as a space", () => {
    expect(neutralize("one\n\ttwo")).toBe("one\n\ttwo");
    expect(neutralizeLine("one\n\ttwo")).toBe("one\\n two");
  });

  test("printable text of every script, emoji and symbols is unchanged", () => {
    const text = 'plain ASCII ~!@#$%^&*()_+{}|:"<>? · Überprüfer — レビュー مراجع 审阅 🙂 ✓ ● ○ … ¢ \u00a0';
    expect(neutralize(text)).toBe(text);
    expect(neutralizeLine(text)).toBe(text);
  });

  test("neutralising twice changes nothing more (the escapes themselves are printable)", () => {
    const once = neutralize("\u001b]0;x\u0007\u202e\u{e0041}");
    expect(neutralize(once)).toBe(once);
  });

  test("safeJson keeps its layout newlines and escapes C0 in strings as JSON.stringify does", () => {
    const value = { a: "x\u001by\nz", b: [1, 2] };
    expect(safeJson(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  test("neutralizeFields escapes every string of a record at any depth and keeps the rest as it was", () => {
    const hostile = "x\n\u001b[2J\u202e";
    const record = { id: hostile, n: 3, ok: true, none: null, nested: { list: [hostile, 1], deeper: { cwd: hostile } } };
    const shown = neutralizeLine(hostile);
    expect(neutralizeFields(record)).toEqual({
      id: shown,
      n: 3,
      ok: true,
      none: null,
      nested: { list: [shown, 1], deeper: { cwd: shown } },
    });
    expect(record.id).toBe(hostile);
  });
});
