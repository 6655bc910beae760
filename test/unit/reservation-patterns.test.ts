// The conflict rule of file reservations (domain/reservations/patterns.ts) against a plain oracle: every path built
// from the patterns' own pieces, up to four segments deep, matched by a regular expression written here from the
// documented rule. Two patterns conflict exactly when some such path is covered by both.
import { describe, expect, test } from "vitest";
import {
  normalisePattern,
  patternCoversPath,
  patternsConflict,
} from "../../app/agent_computer/src/domain/reservations/patterns.ts";

const oracleRegex = (pattern: string): RegExp => {
  const parts = pattern.split("/").map((segment) => {
    if (segment === "**") return "(?:[^/]+/)*";
    let out = "";
    for (const ch of segment) out += ch === "*" ? "[^/]*" : ch === "?" ? "[^/]" : ch.replace(/[.+^$()|{}]/g, "\\$&");
    return `${out}/`;
  });
  // Everything under a match is covered too.
  return new RegExp(`^${parts.join("")}(?:[^/]+/)*$`, "i");
};

const piecesOf = (pattern: string): string[] =>
  pattern
    .split("/")
    .filter((s) => s !== "**")
    .flatMap((s) => [s.replaceAll("*", "").replaceAll("?", "q"), s.replaceAll("*", "zz").replaceAll("?", "Q")])
    .filter((s) => s.length > 0);

const oracleConflict = (a: string, b: string): boolean => {
  const alphabet = [...new Set([...piecesOf(a), ...piecesOf(b), "x", "a.ts", "x.md"])];
  const ra = oracleRegex(a);
  const rb = oracleRegex(b);
  const walk = (prefix: string, depth: number): boolean => {
    if (prefix && ra.test(prefix) && rb.test(prefix)) return true;
    if (depth === 0) return false;
    return alphabet.some((s) => walk(`${prefix}${s}/`, depth - 1));
  };
  return walk("", 4);
};

const CASES: [string, string, boolean][] = [
  ["src/**", "src/a.ts", true],
  ["src/**", "srcx/a.ts", false],
  ["*.md", "docs/x.md", false],
  ["**/*.md", "docs/x.md", true],
  ["*.md", "README.md", true],
  ["src", "src/a.ts", true],
  ["src/", "src/deep/b.ts", true],
  ["src/a.ts", "src/b.ts", false],
  ["src/*.ts", "src/*.js", false],
  ["src/*.ts", "src/a*", true],
  ["src/a?.ts", "src/ab.ts", true],
  ["src/a?.ts", "src/abc.ts", false],
  ["a/**/b", "a/x/y/b", true],
  ["a/**/b", "a/b", true],
  ["a/**/b", "a/c", true],
  ["a/**/b", "c/b", false],
  ["**/test/*", "src/**/x.ts", true],
  ["*", "anything/at/all", true],
  ["docs/*.md", "docs/sub/x.md", false],
  ["README.md", "readme.MD", true],
  ["lib/*/index.ts", "lib/**/index.js", true],
  ["lib/*/index.ts", "lib/*/index.js", false],
];

/** One segment against another: every string of up to five characters drawn from both globs' own characters. */
const SEGMENT_CASES: [string, string, boolean][] = [
  ["a*b", "*c*", true],
  ["*x", "y*", true],
  ["ab*", "ba*", false],
  ["a?c", "*b*", true],
  ["a?c", "ab", false],
  ["*.ts", "*.tsx", false],
  ["?", "??", false],
  ["x*y*z", "*yy*", true],
];

const segmentOracle = (a: string, b: string): boolean => {
  const chars = [...new Set([...a, ...b, "q"].filter((c) => c !== "*" && c !== "?"))];
  const ra = oracleRegex(a);
  const rb = oracleRegex(b);
  const words = (length: number): string[] => (length === 0 ? [""] : words(length - 1).flatMap((w) => chars.map((c) => w + c)));
  for (let length = 1; length <= 5; length++) {
    if (words(length).some((w) => ra.test(`${w}/`) && rb.test(`${w}/`))) return true;
  }
  return false;
};

describe("reservation pattern conflicts", () => {
  test.each(CASES)("%s vs %s → %s, as the oracle says, both ways round", (a, b, expected) => {
    const left = normalisePattern(a);
    const right = normalisePattern(b);
    expect(oracleConflict(left, right)).toBe(expected);
    expect(patternsConflict(left, right)).toBe(expected);
    expect(patternsConflict(right, left)).toBe(expected);
  });

  test.each(SEGMENT_CASES)("segment %s vs %s → %s, as the oracle says", (a, b, expected) => {
    expect(segmentOracle(a, b)).toBe(expected);
    expect(patternsConflict(a, b)).toBe(expected);
    expect(patternsConflict(b, a)).toBe(expected);
  });

  test.each([
    ["!src/a.ts", "negations"],
    ["../etc/passwd", ".. segments"],
    ["src/../x", ".. segments"],
    ["/abs/path", "absolute"],
    ["src//a", "empty path segment"],
    ["src/[ab].ts", "character classes"],
    ["src/a**", "whole path segment"],
    ["", "1 to 512"],
  ])("%s is refused (%s)", (pattern, why) => {
    expect(() => normalisePattern(pattern, "--path")).toThrow(why);
  });

  test("a path is covered by a pattern, its directories and case folded", () => {
    expect(patternCoversPath("src", "src/a/b.ts")).toBe(true);
    expect(patternCoversPath("src/*.ts", "src/a.ts")).toBe(true);
    expect(patternCoversPath("src/*", "src/a/b.ts")).toBe(true);
    expect(patternCoversPath("src/*.ts", "src/a/b.ts")).toBe(false);
    expect(patternCoversPath("src/*.ts", "lib/a.ts")).toBe(false);
    expect(patternCoversPath("**/*.md", "Docs/X.MD")).toBe(true);
    expect(patternCoversPath("a.ts", "a.tsx")).toBe(false);
  });
});
