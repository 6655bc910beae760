// bench/startup.ts splits a command's start-up by timing prefixes of it as whole processes: with
// AGENT_COMPUTER_STARTUP_EXIT_AFTER=<phase> the real binary must stop right after that phase, having done that
// much and nothing more, or the bench would attribute milliseconds to the wrong phase.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";

const checkedIn = async () => {
  const home = mkdtempSync(join(tmpdir(), "ac-phases-"));
  const env = { AGENT_COMPUTER_HOME: home };
  const checkin = await runBin("agent-checkin-cli", ["--agent-id", "reader", "--confirm", "--json"], { env });
  expect(checkin.exitCode, checkin.stderr).toBe(0);
  return { home, env };
};

describe("start-up phases (AGENT_COMPUTER_STARTUP_EXIT_AFTER)", () => {
  test.each(["entry", "command-loaded", "argv-parsed"])("after %s: exit 0, nothing printed, no store created", async (phase) => {
    const home = join(mkdtempSync(join(tmpdir(), "ac-phases-")), "state");
    const r = await runBin("agent-inbox-cli", ["--agent-id", "reader"], {
      env: { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_STARTUP_EXIT_AFTER: phase },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toBe("");
    expect(existsSync(home)).toBe(false);
  });

  test.each(["store-open", "command-run"])("after %s: exit 0 and nothing printed, the store opened", async (phase) => {
    const { env } = await checkedIn();
    const r = await runBin("agent-inbox-cli", ["--agent-id", "reader"], {
      env: { ...env, AGENT_COMPUTER_STARTUP_EXIT_AFTER: phase },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toBe("");
  });

  test("an unknown phase name changes nothing: the command runs to its output", async () => {
    const { env } = await checkedIn();
    const r = await runBin("agent-inbox-cli", ["--agent-id", "reader", "--json"], {
      env: { ...env, AGENT_COMPUTER_STARTUP_EXIT_AFTER: "nope" },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json().agent_id).toBe("reader");
  });
});
