// A plain clone with nothing beside it runs every test: no source under app/, test/, scripts/, bench/, bin/ or
// .ci/ names a path outside the repository, and what tests read from Herdr's repository is vendored with its NOTICE.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";
import { codeStrings, outsidePaths, outsideReason, shellWords } from "../helpers/outside-paths.ts";

const TREES = ["app", "test", "scripts", "bench", "bin", ".ci"];
// This file's own examples below are escaping paths on purpose.
const THIS_FILE = "test/unit/self-contained.test.ts";

test("no source under the project's trees names a path outside the repository", () => {
  const found = outsidePaths(repoRoot, TREES);
  expect(found.filter((hit) => hit.file !== THIS_FILE)).toEqual([]);
  expect(found.filter((hit) => hit.file === THIS_FILE).length).toBeGreaterThan(0);
});

describe("the scan finds what escapes and nothing else", () => {
  const at = (file: string) => join(repoRoot, file);
  const escapes = (source: string, file: string) =>
    codeStrings(source).filter((text) => outsideReason(text, at(file), repoRoot) !== undefined);

  test("the schema path the Herdr double once read from ../shared", () => {
    const old = 'export const HERDR_SCHEMA_PATH = join(HERE, "../../../../shared/contracts/herdr-api.schema.json");';
    expect(escapes(old, "test/fixtures/fake-herdr/herdr-schema.ts")).toEqual([
      "../../../../shared/contracts/herdr-api.schema.json",
    ]);
    // Three levels up from the same folder is the repository root itself.
    expect(escapes('join(HERE, "../../../node_modules/.bin/bun")', "test/fixtures/fake-herdr/control.ts")).toEqual([]);
  });

  test("segments passed as separate arguments, templates and absolute workplace paths", () => {
    expect(escapes('join(HERE, "..", "..", "..", "..", "shared")', "test/fixtures/fake-herdr/x.ts")).toEqual([
      "../../../../shared",
    ]);
    expect(escapes(`const p = \`\${import.meta.dir}/../../../shared/spec\`;`, "test/unit/x.ts")).toHaveLength(1);
    expect(escapes('readFileSync("/work/shared/contracts/herdr-api.schema.json")', "test/unit/x.ts")).toHaveLength(1);
    expect(escapes('import { a } from "../shared.ts";', "app/agent_computer/src/cli/automation/x.ts")).toEqual([]);
  });

  test("comments, regular expressions and flag examples that merely mention a path", () => {
    const source = [
      "// Facts come from ../shared/reference/herdr-0.8.md.",
      "/* ../../../../x */",
      'const re = /"..\\/..\\/..\\/"/;',
      'const example = "herdr-lease-cli reviewer start --cwd /work/wt/pr42";',
    ].join("\n");
    expect(escapes(source, "test/unit/x.ts")).toEqual([]);
  });

  test("shell scripts: a climb from the script's own folder", () => {
    const script = (body: string, file: string) =>
      shellWords(body).filter((word) => outsideReason(word, at(file), repoRoot) !== undefined);
    expect(script('# cd ../../..\ncd "$(dirname "$0")/.."', "scripts/test-all.sh")).toEqual([]);
    expect(script('cd "$(dirname "$0")/../.."', "scripts/test-all.sh")).toHaveLength(1);
    expect(script('repo=$(CDPATH= cd -- "$here/../../../../.." && pwd)', "test/fixtures/fake-herdr/bin/herdr")).toHaveLength(1);
  });
});

test("the vendored Herdr API schema is upstream's file, byte for byte, with its NOTICE", () => {
  const folder = join(repoRoot, "test/fixtures/herdr-api");
  const notice = readFileSync(join(folder, "NOTICE"), "utf8");
  expect(notice).toContain("Apache License, Version 2.0");
  expect(notice).toContain("10974c822d607f03e20e9741ec027910f0c1f93a (protocol 20)");
  const schema = readFileSync(join(folder, "herdr-api.schema.json"));
  const digest = createHash("sha256").update(schema).digest("hex");
  expect(notice).toContain(`sha256 ${digest}`);
  expect(JSON.parse(schema.toString("utf8"))).toMatchObject({ protocol: 20 });
});
