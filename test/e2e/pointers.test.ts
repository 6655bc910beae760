// Discovery without tool registration: every binary is pointed to from a Skill or another binary's --help,
// every pointer names a binary that exists, and the context it costs stays inside its budget.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { repoRoot, runBin } from "../helpers/bin.ts";
import { allCommands, binaryNames } from "../helpers/registry.ts";

const POINTER = /`?([a-z][a-z0-9-]*(?:-cli|-worker|-control|-admin))(?: [a-z-]+)? --help`?/g;
const skillsDir = join(repoRoot, "skills");
const skills = readdirSync(skillsDir).map((name) => ({ name, text: readFileSync(join(skillsDir, name, "SKILL.md"), "utf8") }));

/** The sentences an agent pays for: each skill's description plus its pointer bullets. */
const pointerSentences = (text: string): string[] => [
  ...(/^description: (.+)$/m.exec(text)?.[1] ? [/^description: (.+)$/m.exec(text)?.[1] as string] : []),
  ...text.split("\n").filter((line) => /^- .*--help/.test(line)),
];

const named = (text: string): string[] => [...text.replace(/\s+/g, " ").matchAll(POINTER)].map((m) => m[1] as string);

const helps = new Map<string, string>();
beforeAll(async () => {
  for (const entry of await allCommands()) {
    const r = await runBin(entry.binary, [...entry.words, "--help"]);
    helps.set([entry.binary, ...entry.words].join(" "), r.stdout);
  }
  for (const name of binaryNames) helps.set(name, (await runBin(name, ["--help"])).stdout);
}, 120_000);

describe("pointers", () => {
  test("every skill begins (after its front matter) with a pointer naming a condition and a --help", () => {
    for (const skill of skills) {
      const description = /^description: (.+)$/m.exec(skill.text)?.[1] ?? "";
      expect(description, skill.name).toMatch(/^When .+ `[a-z-]+ --help`/);
    }
  });

  test("every binary named in a pointer exists", () => {
    const sources = [...skills.map((s) => s.text), ...helps.values()];
    const unknown = [...new Set(sources.flatMap(named))].filter((name) => !binaryNames.includes(name));
    expect(unknown).toEqual([]);
  });

  test("every binary is pointed to from a skill or from another binary's --help", () => {
    const pointedFromSkills = new Set(skills.flatMap((s) => named(s.text)));
    const pointedFromHelp = new Set([...helps].flatMap(([owner, text]) => named(text).filter((n) => n !== owner.split(" ")[0])));
    const orphans = binaryNames.filter((name) => !pointedFromSkills.has(name) && !pointedFromHelp.has(name));
    expect(orphans).toEqual([]);
  });
});

describe("context budget", () => {
  test("all pointer sentences together stay under 2 KB", () => {
    const bytes = skills.flatMap((s) => pointerSentences(s.text)).reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    console.log(`pointer sentences: ${bytes} bytes across ${skills.length} skills`);
    expect(bytes).toBeLessThan(2048);
  });

  test("each --help stays under 8 KB", () => {
    const sizes = [...helps].map(([name, text]) => [name, Buffer.byteLength(text)] as const).sort((a, b) => b[1] - a[1]);
    console.log(
      `largest --help: ${sizes
        .slice(0, 3)
        .map(([n, b]) => `${n} ${b} B`)
        .join(", ")}`,
    );
    for (const [name, bytes] of sizes) expect(bytes, name).toBeLessThan(8192);
  });
});
