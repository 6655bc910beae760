// The shape of the send and of the source around it, read from the files: the send's domain function states rules
// and leaves how statements travel to the store; the lock order of agents' rows is one statement; "retry once on a
// unique-index race" is one helper; and no source file grows past 400 lines.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));

describe("the send and the source around it", () => {
  test("no source file is above 400 lines", () => {
    const long = files.filter((f) => f.text.split("\n").length - 1 > 400).map((f) => f.path);
    expect(long).toEqual([]);
  });

  test("the lock order of agents' rows is written in one statement, in one file", () => {
    const locking = files.filter((f) => /ORDER BY name COLLATE "C" FOR NO KEY UPDATE/.test(f.text)).map((f) => f.path);
    expect(locking).toEqual(["store/sql/agent-locks.ts"]);
  });

  test("a retry on a lost unique-index race is the one helper's, not a copied catch block", () => {
    const copied = files
      .filter((f) => f.path.startsWith("domain/") && /instanceof UniqueViolation[^)]*\)\s*return \w+\(/.test(f.text))
      .map((f) => f.path);
    expect(copied).toEqual(["domain/unique-race.ts"]);
  });

  test("the send's domain function sends no statement ahead and passes no batching hint: the store decides", () => {
    const send = files.find((f) => f.path === "domain/mesh/send.ts")?.text ?? "";
    expect(send).not.toMatch(/\.catch\(\(\) => undefined\)/);
    expect(send).not.toMatch(/independent|firstFailure|insertAndDeliver|lockAgents/);
    expect(send).toMatch(/\{ send: \{ sender: input\.from, recipients: named \} \}/);
    const port = files.find((f) => f.path === "store/port.ts")?.text ?? "";
    expect(port).not.toMatch(/independent\?:/);
  });
});
