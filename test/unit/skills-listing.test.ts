// The listing line of every Skill (name + description) is in every request a model gets, so all of them together
// must stay under the budget however many Skills arrive. This sums them from the SKILL.md files, without a client;
// test/e2e/skills-listing-claude-code.test.ts checks the same lines in the real client's request.
import { expect, test } from "vitest";
import { listingBytes, SKILL_LISTING_BUDGET_BYTES, skillFrontmatters, skillListingLines } from "../helpers/skills.ts";

test("every Skill states a one-line name (its directory) and description in its frontmatter", () => {
  const skills = skillFrontmatters();
  expect(skills.length).toBeGreaterThan(0);
  for (const skill of skills) {
    expect(skill.name, skill.dir).toBe(skill.dir);
    expect(skill.description, skill.dir).toMatch(/^\S[^\n]*\S$/);
  }
});

test(`all Skills' listing lines together stay under ${SKILL_LISTING_BUDGET_BYTES} bytes`, () => {
  const lines = skillListingLines();
  expect(listingBytes(lines), lines.join("\n")).toBeLessThan(SKILL_LISTING_BUDGET_BYTES);
});

test("the sum counts UTF-8 bytes and newlines, so a budget-filling description would be caught", () => {
  expect(listingBytes(["- a: é"])).toBe(8);
  const filler = `- big: ${"x".repeat(SKILL_LISTING_BUDGET_BYTES)}`;
  expect(listingBytes([...skillListingLines(), filler])).toBeGreaterThanOrEqual(SKILL_LISTING_BUDGET_BYTES);
});
