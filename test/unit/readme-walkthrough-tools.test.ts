// The walk-through says up front which programs it needs besides the project's binaries, so a newcomer installs
// them before the first block fails. Every command word of its blocks is one of: a shell builtin or keyword, a
// coreutils program, a project binary, or a tool its opening paragraph names.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { binaries } from "../../app/agent_computer/src/cli/binaries.ts";
import { repoRoot } from "../helpers/bin.ts";

const SHELL_WORDS = new Set([
  "export",
  "cd",
  "echo",
  "printf",
  "kill",
  "wait",
  "for",
  "do",
  "done",
  "until",
  "while",
  "if",
  "then",
  "fi",
  "break",
  "true",
  "false",
  "[",
  "test",
  "local",
]);
// GNU coreutils, present wherever bash is.
const COREUTILS = new Set(["mktemp", "mkdir", "cat", "sleep", "date", "base64", "od", "tr", "seq", "rm", "ls", "head", "tail"]);

const section = (): string =>
  readFileSync(join(repoRoot, "README.md"), "utf8")
    .split(/^## Walk-through$/m)[1]
    ?.split(/^## /m)[0] ?? "";

/** The first word of every simple command: at a line start, after | && || ; ( $( or `!`, heredoc bodies skipped. */
const commandWords = (script: string): Set<string> => {
  const withoutHeredocs = script.replace(/<<'?(\w+)'?\n[\s\S]*?\n\1\n/g, "\n");
  const words = new Set<string>();
  for (const line of withoutHeredocs.split("\n")) {
    const code = line.replace(/'[^']*'/g, "''").replace(/\s#.*$/, "");
    for (const m of code.matchAll(/(?:^|\|\||&&|[|;(]|\$\(|!\s)\s*([A-Za-z_][\w.-]*|\[)(?=\s|$|\))/g)) {
      const word = m[1] as string;
      if (!/^\w+=/.test(code.slice((m.index ?? 0) + m[0].length - word.length))) words.add(word);
    }
  }
  return words;
};

test("the walk-through names every tool its blocks run beyond bash, coreutils and the project's binaries", () => {
  const text = section();
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  const opening = text.split("```")[0] ?? "";
  const needed = [...commandWords(blocks.join("\n"))].filter(
    (word) => !SHELL_WORDS.has(word) && !COREUTILS.has(word) && !(word in binaries),
  );
  // The scan must see the tools this walk-through is known to use, or it proves nothing.
  expect(needed).toEqual(expect.arrayContaining(["jq", "curl", "openssl", "grep"]));
  const unnamed = needed.filter((tool) => !new RegExp(`\\b${tool}\\b`).test(opening));
  expect(unnamed, `tools used but not named before the first block:\n${opening}`).toEqual([]);
});
