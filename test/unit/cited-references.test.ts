// The project carries what its comments and docs cite: no file names a document beside the checkout (the shared
// spec and reference notes of the workplace it was built in), and every section of docs/ a file cites by number
// (`docs/herdr-facts.md §1.8`) is there.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";

const TREES = ["app", "test", "scripts", "bench", "bin", ".ci", "skills", "docs", "README.md"];
// self-contained.test.ts quotes escaping paths on purpose, as inputs of its scanner.
const QUOTES_ON_PURPOSE = new Set(["test/unit/self-contained.test.ts", "test/unit/cited-references.test.ts"]);

const OUTSIDE: [RegExp, string][] = [
  [/(?:\.\.\/)+shared\b/g, "a path up to the workplace's shared folder"],
  [/\bshared\/(?:reference|spec|contracts|seeds|hooks)\b/g, "the workplace's shared folder"],
  [/\b(?:spec|reference)\/[\w.-]+\.md\b/g, "a spec or reference note outside the repository"],
  [/\breference §/g, "a section of the outside reference note (cite docs/herdr-facts.md §…)"],
  [/\b(?:ARCHITECTURE|STYLE)\.md\b/g, "a workplace document outside the repository"],
];

const filesUnder = (path: string): string[] => {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.name === "node_modules" ? [] : filesUnder(join(path, entry.name)),
  );
};

/** Every citation in `text` that points outside the repository, or at a section `read(docs file)` lacks. */
const badCitations = (text: string, read: (path: string) => string | undefined): string[] => [
  ...OUTSIDE.flatMap(([pattern, what]) => [...text.matchAll(pattern)].map((m) => `${m[0]}: ${what}`)),
  ...[...text.matchAll(/\b(docs\/[\w.-]+\.md)`? §(\d+(?:\.\d+)?)/g)].flatMap(([cited, path, section]) => {
    const heading = new RegExp(`^#{2,3} ${(section as string).replace(".", "\\.")}\\.? `, "m");
    return heading.test(read(path as string) ?? "") ? [] : [`${cited}: no such section`];
  }),
];

const readDoc = (path: string): string | undefined =>
  existsSync(join(repoRoot, path)) ? readFileSync(join(repoRoot, path), "utf8") : undefined;

test("no comment or doc cites a file outside the repository", () => {
  const found = TREES.flatMap((tree) => filesUnder(join(repoRoot, tree)))
    .map((file) => relative(repoRoot, file))
    .filter((file) => !QUOTES_ON_PURPOSE.has(file))
    .flatMap((file) => {
      const text = readFileSync(join(repoRoot, file), "utf8");
      return badCitations(text, readDoc).map((hit) => `${file}: ${hit}`);
    });
  expect(found).toEqual([]);
});

test("the scan catches each kind of outside citation, and a cited docs/ section that is missing", () => {
  const none = () => undefined;
  expect(badCitations("// Facts from ../shared/reference/herdr-0.8.md §1", none)).toHaveLength(3);
  expect(badCitations("// (reference §1.8)", none)).toHaveLength(1);
  expect(badCitations("-- Auto-wake tokens (spec/10-mesh.md)", none)).toHaveLength(1);
  expect(badCitations("// agree with ARCHITECTURE.md", none)).toHaveLength(1);
  expect(badCitations("// see docs/herdr-facts.md §3", none)).toEqual(["docs/herdr-facts.md §3: no such section"]);
  const doc = () => "## 3. Agent state\n### 1.8 JSON record shapes\n";
  expect(badCitations("// docs/herdr-facts.md §3 and docs/herdr-facts.md §1.8", doc)).toEqual([]);
  expect(badCitations("// (`docs/herdr-facts.md` §1.3)", doc)).toEqual(["docs/herdr-facts.md` §1.3: no such section"]);
});

test("docs/herdr-facts.md carries its sources and Herdr's licence", () => {
  const facts = readFileSync(join(repoRoot, "docs/herdr-facts.md"), "utf8");
  expect(facts).toContain("Apache License, Version 2.0");
  expect(facts).toMatch(/^## 0\. Sources and versions/m);
  for (const section of ["## 1. CLI surface", "## 2. Socket API", "## 3. Agent state", "## 8. What a faithful"]) {
    expect(facts).toContain(section);
  }
});
