// The test command's file order (test/setup/longest-first.ts): longest recorded first, unknown files before all.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { DURATIONS_FILE, type Durations, longestFirst } from "../setup/longest-first.ts";

describe("longest-first file order", () => {
  test("longest recorded duration first, ties by path, files with no record before every recorded one", () => {
    const durations: Durations = { "a.test.ts": 1, "b.test.ts": 172, "c.test.ts": 1, "d.test.ts": 30 };
    expect(longestFirst(["a.test.ts", "c.test.ts", "new.test.ts", "d.test.ts", "b.test.ts"], durations)).toEqual([
      "new.test.ts",
      "b.test.ts",
      "d.test.ts",
      "a.test.ts",
      "c.test.ts",
    ]);
  });

  test("the record names only test files that exist, and the slowest suite is in it", () => {
    const durations = JSON.parse(readFileSync(DURATIONS_FILE, "utf8")) as Durations;
    const missing = Object.keys(durations).filter((path) => !existsSync(path));
    expect(missing, `refresh ${DURATIONS_FILE} with scripts/record-test-durations.ts`).toEqual([]);
    expect(longestFirst(Object.keys(durations), durations)[0]).toBe("test/multihost/multi-host.test.ts");
  });
});
