// No source file above 400 lines, tests included: a file that long holds more than one thing, and is split into
// files that each say what they hold (shared set-up into test/helpers). Counts every source file the project writes:
// TypeScript, the console's stylesheets and script, shell scripts and SQL migrations.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const FOLDERS = ["app", "test", "bench", "scripts"];
const MAX_LINES = 400;

/** Lines as an editor numbers them: a final newline does not start another line. */
const lineCount = (text: string): number => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));

const SOURCE = /\.(ts|js|css|sh|sql)$/;

const sourceFiles = (folder: string): string[] =>
  readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => SOURCE.test(file) && !file.split("/").includes("node_modules"))
    .map((file) => join(ROOT, folder, file));

test(`no source file under ${FOLDERS.join(", ")} is above ${MAX_LINES} lines`, () => {
  const files = FOLDERS.flatMap(sourceFiles);
  expect(files.length).toBeGreaterThan(100);
  const tooLong = files
    .map((file) => ({ file: relative(ROOT, file), lines: lineCount(readFileSync(file, "utf8")) }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  expect(tooLong).toEqual([]);
});

test("lines are counted as an editor numbers them", () => {
  expect(lineCount("")).toBe(0);
  expect(lineCount("a")).toBe(1);
  expect(lineCount("a\n")).toBe(1);
  expect(lineCount("a\nb\n")).toBe(2);
  expect(lineCount(`${"x\n".repeat(MAX_LINES + 1)}`)).toBe(MAX_LINES + 1);
});
