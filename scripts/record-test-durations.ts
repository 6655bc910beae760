// Writes test/durations.json (each test file's wall time in seconds, longest first) from a vitest JSON report, for
// the longest-first order the test command starts files in (test/setup/longest-first.ts). Run it after the test
// command when files were added or their times moved: node_modules/.bin/bun scripts/record-test-durations.ts [report]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

type Report = { testResults: { name: string; startTime: number; endTime: number }[] };

const reportPath = process.argv[2] ?? "test-artifacts/vitest-compiled.json";
const report = JSON.parse(readFileSync(reportPath, "utf8")) as Report;
// The report sits in <checkout>/test-artifacts/: its paths are made relative to that checkout, which may be another clone.
const checkout = dirname(dirname(resolve(reportPath)));
const rows = report.testResults
  .map((file) => [relative(checkout, file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
writeFileSync("test/durations.json", `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`);
console.log(`test/durations.json: ${rows.length} files, ${rows.reduce((sum, [, s]) => sum + s, 0).toFixed(0)} s in all`);
