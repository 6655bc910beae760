// The Skills of skills/ as a client lists them to the model: one line per Skill, `- <name>: <description>`,
// taken from each SKILL.md's frontmatter. Every request carries these lines, so their total is a budget.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./bin.ts";

/** What every request may spend on our listing lines, in UTF-8 bytes (each line with its newline). */
export const SKILL_LISTING_BUDGET_BYTES = 2048;

export interface SkillFrontmatter {
  dir: string;
  name: string | undefined;
  description: string | undefined;
}

/** The name and description of each skills/<dir>/SKILL.md, read from its frontmatter (between the first two ---). */
export const skillFrontmatters = (): SkillFrontmatter[] =>
  readdirSync(join(repoRoot, "skills"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const text = readFileSync(join(repoRoot, "skills", entry.name, "SKILL.md"), "utf8");
      const frontmatter = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "";
      return {
        dir: entry.name,
        name: /^name: (.+)$/m.exec(frontmatter)?.[1],
        description: /^description: (.+)$/m.exec(frontmatter)?.[1],
      };
    });

/** The listing line of every Skill, as Claude Code and Codex show it. */
export const skillListingLines = (): string[] => skillFrontmatters().map((skill) => `- ${skill.name}: ${skill.description}`);

/** UTF-8 bytes of the lines, each with the newline that ends it in the listing. */
export const listingBytes = (lines: readonly string[]): number =>
  lines.reduce((sum, line) => sum + Buffer.byteLength(`${line}\n`), 0);
