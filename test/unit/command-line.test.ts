// A value printed inside a command line for a person to paste is one shell word that means exactly that value, and
// nothing in it acts on the terminal it is printed to.
import { describe, expect, test } from "vitest";
import { shellWord } from "../../app/agent_computer/src/command-line.ts";
import { neutralize } from "../../app/agent_computer/src/terminal-text.ts";

/** What bash makes of a printed word. */
const pasted = (word: string): string => {
  const run = Bun.spawnSync(["bash", "-c", `printf %s ${word}`], { env: { LC_ALL: "C.UTF-8" } });
  return run.stdout.toString();
};

describe("shellWord", () => {
  test("plain values stay as they are; others are single-quoted", () => {
    expect(shellWord("/tmp/job-1")).toBe("/tmp/job-1");
    expect(shellWord("digest it's")).toBe(`'digest it'\\''s'`);
  });

  test("a value with control, bidi, zero-width or tag characters, newlines or tabs is $'…' with escapes", () => {
    for (const value of [
      "job\u001b]0;PWNED\u0007dir",
      "a\u009b2Jb",
      "invoice\u202eexe.pdf",
      "zero\u200bwidth\ufeff",
      "two\nlines\tand tab",
      "quote ' and \\ backslash\u001b",
      "tag\u{e0041}char é 🙂",
    ]) {
      const word = shellWord(value);
      expect(word.startsWith("$'")).toBe(true);
      expect(neutralize(word), "nothing left for a terminal to act on").toBe(word);
      expect(word).not.toContain("\n");
      expect(pasted(word), JSON.stringify(value)).toBe(value);
    }
  });
});
