// The Skills' listing lines as the real Claude Code client (pinned in test-clients/) sends them, offline: every
// Skill of skills/ linked into a scratch HOME, one `claude -p` session against a scripted Messages API, and the
// listing block cut out of the captured request. Our lines must all be there, whole, and under the budget
// together (test/unit/skills-listing.test.ts sums the same lines from the SKILL.md files without a client).
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { CLAUDE, offlineClaudeEnv, runClient } from "../helpers/agent-clients.ts";
import { repoRoot } from "../helpers/bin.ts";
import { type MessagesRequest, startScriptedMessagesApi, textsOf } from "../helpers/scripted-messages-api.ts";
import { listingBytes, SKILL_LISTING_BUDGET_BYTES, skillListingLines } from "../helpers/skills.ts";

const LISTING_HEADER = "The following skills are available for use with the Skill tool:\n\n";

const api = startScriptedMessagesApi(() => ({ text: "ok" }));
afterAll(() => api.stop());

/** The listing block of a request: from its header to the first blank line. */
const listingBlockOf = (request: MessagesRequest): string | undefined => {
  const text = textsOf(request).find((part) => part.includes(LISTING_HEADER));
  return text?.split(LISTING_HEADER)[1]?.split("\n\n")[0];
};

test(`the real client lists every Skill of skills/ whole, and our lines total under ${SKILL_LISTING_BUDGET_BYTES} bytes`, {
  timeout: 240_000,
}, async () => {
  const root = mkdtempSync(join(tmpdir(), "ac-claude-skills-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(home, ".claude", "skills"), { recursive: true });
  mkdirSync(project);
  for (const name of readdirSync(join(repoRoot, "skills"))) {
    symlinkSync(join(repoRoot, "skills", name), join(home, ".claude", "skills", name));
  }
  writeFileSync(join(home, ".claude", "settings.json"), "{}");

  const result = await runClient(CLAUDE, ["-p", "hello", "--output-format", "stream-json", "--verbose"], {
    cwd: project,
    env: offlineClaudeEnv(home, root, api.url),
  });
  expect(result.exitCode, result.output).toBe(0);

  const blocks = api.requests.map(listingBlockOf).filter((block): block is string => block !== undefined);
  expect(blocks.length, "a request carried the Skills listing").toBeGreaterThan(0);
  const listed = (blocks[0] as string).split("\n");
  const ours = skillListingLines();
  // Each of our lines is a whole line of the block: present, and not cut short by the client.
  for (const line of ours) expect(listed).toContain(line);
  const shown = listed.filter((line) => ours.includes(line));
  expect(shown).toHaveLength(ours.length);
  expect(listingBytes(shown), shown.join("\n")).toBeLessThan(SKILL_LISTING_BUDGET_BYTES);
});
