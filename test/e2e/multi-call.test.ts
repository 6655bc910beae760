// The compiled executable is multi-call: started under a binary's name (a symlink, as `ln -s` or a package
// manager makes one, found by path or on PATH), it runs that binary, with no launcher in between.

import { existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { takeLauncherSettings } from "../../app/agent_computer/src/cli/kernel/launcher-env.ts";
import { repoRoot } from "../helpers/bin.ts";

const compiled = join(repoRoot, "dist", "agent-computer");
const built = existsSync(compiled);
if (!built) console.warn("SKIPPED: multi-call symlink tests (no dist/agent-computer; `npm ci` or `npm run build` makes it)");

test("the compiled entry takes its name from argv0; a script run by Bun from argv[1]; a launcher's name wins", () => {
  expect(takeLauncherSettings({}, "/$bunfs/root/agent-computer", "/tmp/x/agent-inbox-cli")).toBe("agent-inbox-cli");
  expect(takeLauncherSettings({}, "B:/~BUN/root/agent-computer.exe", "agent-send-cli")).toBe("agent-send-cli");
  expect(takeLauncherSettings({}, "/repo/app/agent_computer/src/cli/main.ts", "bun")).toBe("main.ts");
  const env = { AGENT_COMPUTER_INVOKED_AS: "agent-ack-cli" };
  expect(takeLauncherSettings(env, "/$bunfs/root/agent-computer", "/x/dist/agent-computer")).toBe("agent-ack-cli");
  expect(env).toEqual({});
});

describe.skipIf(!built)("a symlink to dist/agent-computer named after a binary runs that binary", () => {
  const dir = mkdtempSync(join(tmpdir(), "ac-multicall-"));
  for (const name of ["agent-inbox-cli", "agent-computer-worker", "create-automation-job-cli"]) {
    symlinkSync(compiled, join(dir, name));
  }
  const env = { PATH: `${dir}:/usr/bin:/bin`, FORCE_COLOR: "0", NO_COLOR: "1" };

  test.each(["agent-inbox-cli", "agent-computer-worker", "create-automation-job-cli"])("%s --help by path", async (name) => {
    const help = await execa(join(dir, name), ["--help"], { env, reject: false });
    expect(help.stderr).toBe("");
    expect(help.exitCode).toBe(0);
    expect(help.stdout.split("\n")[0]).toMatch(new RegExp(`^${name} — `));
  });

  test("found on PATH under its bare name", async () => {
    const help = await execa("agent-inbox-cli", ["--help"], { env, reject: false, cwd: dir });
    expect(help.exitCode).toBe(0);
    expect(help.stdout.split("\n")[0]).toMatch(/^agent-inbox-cli — /);
  });

  test("under a name that is no binary it says so and exits 2", async () => {
    symlinkSync(compiled, join(dir, "not-a-binary"));
    const run = await execa(join(dir, "not-a-binary"), ["--help"], { env, reject: false });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('unknown binary name "not-a-binary"');
  });

  test("a name that only an object's prototype knows (constructor) is no binary either", async () => {
    symlinkSync(compiled, join(dir, "constructor"));
    const run = await execa(join(dir, "constructor"), ["--agent-id", "x"], { env, reject: false });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('unknown binary name "constructor"');
  });

  test("a name holding terminal escapes is echoed inert", async () => {
    const name = "evil\u001b]0;PWNED\u0007\u009b2J\u202ex";
    symlinkSync(compiled, join(dir, name));
    const run = await execa(join(dir, name), [], { env, reject: false });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('unknown binary name "evil\\x1b]0;PWNED\\x07\\x9b2J\\u202ex"');
  });
});
