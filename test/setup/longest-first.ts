// The order vitest starts test files in: longest first, by the durations recorded in test/durations.json. In a fresh
// clone vitest has no results cache and starts the largest files first, which put the multi-host suite (a short file
// that runs for minutes) at the end, alone on one worker for its last 100 s. Longest-first keeps both workers busy to
// the end. Files with no recorded duration (new ones) start first, as vitest itself does with unknown files.
// Refresh the record after a run with: node_modules/.bin/bun scripts/record-test-durations.ts
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export type Durations = Record<string, number>;

/** Paths relative to the project root, longest recorded duration first; unknown paths before every known one. */
export const longestFirst = (paths: readonly string[], durations: Durations): string[] =>
  [...paths].sort(
    (a, b) => (durations[b] ?? Number.POSITIVE_INFINITY) - (durations[a] ?? Number.POSITIVE_INFINITY) || a.localeCompare(b),
  );

export const DURATIONS_FILE = "test/durations.json";

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = JSON.parse(readFileSync(`${root}/${DURATIONS_FILE}`, "utf8")) as Durations;
    const byPath = new Map(files.map((spec) => [relative(root, spec.moduleId), spec]));
    return longestFirst([...byPath.keys()], durations).map((path) => byPath.get(path) as TestSpecification);
  }
}
