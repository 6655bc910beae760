// The process is the point: what a user sees when AGENT_COMPUTER_HOME cannot hold the store (exit 2, the variable
// named, no "this is a bug"), in human text and with --json.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";

const root = mkdtempSync(join(tmpdir(), "ac-config-e2e-"));
const aFile = join(root, "a-file");
writeFileSync(aFile, "x\n");
const env = { AGENT_COMPUTER_HOME: aFile, AGENT_COMPUTER_DATABASE_URL: undefined };

test("agents-list-cli with AGENT_COMPUTER_HOME set to a file exits 2 with CONFIG_INVALID naming the variable", async () => {
  const human = await runBin("agents-list-cli", [], { env });
  expect(human.exitCode).toBe(2);
  expect(human.stdout).toBe("");
  expect(human.stderr).toContain(`agents-list-cli: CONFIG_INVALID: AGENT_COMPUTER_HOME=${aFile}:`);
  expect(human.stderr).not.toContain("bug");
  const json = await runBin("agent-checkin-cli", ["--agent-id", "a1", "--confirm", "--json"], { env });
  expect(json.exitCode).toBe(2);
  expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: "CONFIG_INVALID", variable: "AGENT_COMPUTER_HOME" } });
});
