// The one JSON nesting limit: counted without recursion before JSON.parse, brackets inside strings ignored, and a
// text that is not JSON (or JSON after its first value) never reported as too deep.
import { describe, expect, test } from "vitest";
import { JsonTooDeep, jsonNestedDeeperThan, MAX_JSON_DEPTH, parseJson } from "../../app/agent_computer/src/json-depth.ts";

const nested = (levels: number, open = "[", close = "]"): string => open.repeat(levels) + close.repeat(levels);
const objects = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;

describe("jsonNestedDeeperThan", () => {
  test.each([
    ["[]", 1, false],
    ["[]", 0, true],
    ['{"a":[1]}', 2, false],
    ['{"a":[1]}', 1, true],
    [nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH, false],
    [nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH, true],
    [objects(MAX_JSON_DEPTH), MAX_JSON_DEPTH, false],
    [objects(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH, true],
    [`[${"[]".repeat(10_000)}]`, 2, false],
    ['  \n\t[[["x"]]]', 3, false],
    ['  \n\t[[["x"]]]', 2, true],
  ])("%s within %i: too deep %s", (text, limit, deeper) => {
    expect(jsonNestedDeeperThan(text, limit)).toBe(deeper);
  });

  test("brackets inside strings, escaped quotes included, do not count", () => {
    expect(jsonNestedDeeperThan(`["${"[{".repeat(500)}"]`, 1)).toBe(false);
    expect(jsonNestedDeeperThan(`["\\"${"[".repeat(500)}"]`, 1)).toBe(false);
    expect(jsonNestedDeeperThan(`["\\\\", ${nested(3)}]`, 3)).toBe(true);
  });

  test("a scalar or a text that is not JSON is never too deep, whatever follows", () => {
    expect(jsonNestedDeeperThan(`hello ${nested(1000)}`, 1)).toBe(false);
    expect(jsonNestedDeeperThan(`"s" ${nested(1000)}`, 1)).toBe(false);
    expect(jsonNestedDeeperThan(`42${nested(1000)}`, 1)).toBe(false);
    expect(jsonNestedDeeperThan(`[] ${nested(1000)}`, 1)).toBe(false);
    expect(jsonNestedDeeperThan("", 0)).toBe(false);
  });

  test("a million levels are counted without recursion", () => {
    expect(jsonNestedDeeperThan(nested(1_000_000))).toBe(true);
    expect(jsonNestedDeeperThan("[".repeat(1_000_000))).toBe(true);
  });
});

describe("parseJson", () => {
  test("parses within the limit", () => {
    expect(parseJson('{"pr":12,"labels":["a"]}')).toEqual({ pr: 12, labels: ["a"] });
    expect(parseJson(nested(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
  });

  test("refuses deeper JSON before parsing, naming the limit; a syntax error stays a SyntaxError", () => {
    const error = (() => {
      try {
        parseJson(nested(100_000));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(JsonTooDeep);
    expect((error as JsonTooDeep).limit).toBe(MAX_JSON_DEPTH);
    expect(() => parseJson("{nope")).toThrow(SyntaxError);
  });
});
