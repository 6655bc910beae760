// `npm pack` produces a tarball that `npm install -g` installs with every binary on PATH and working.

import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";
import { binaryNames } from "../helpers/registry.ts";

test("the packed tarball installs globally and every binary runs from PATH", { timeout: 300_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), "ac-pack-"));
  // --ignore-scripts: no rebuild of dist/ while other suites may be running it; the tarball takes dist/ as built.
  const pack = await execa("npm", ["pack", "--ignore-scripts", "--pack-destination", work], { cwd: repoRoot });
  const tarball = join(work, pack.stdout.trim().split("\n").at(-1) as string);
  expect(existsSync(tarball)).toBe(true);

  const prefix = join(work, "prefix");
  await execa("npm", ["install", "-g", tarball, "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund"], {
    env: { npm_config_loglevel: "error" },
  });
  const installed = readdirSync(join(prefix, "bin")).sort();
  expect(installed).toEqual(expect.arrayContaining(binaryNames));

  const home = join(work, "state");
  const env = { PATH: `${join(prefix, "bin")}:/usr/bin:/bin`, AGENT_COMPUTER_HOME: home, HOME: work };
  for (const name of binaryNames) {
    const help = await execa(name, ["--help"], { env, cwd: work, reject: false });
    expect(help.exitCode, `${name} --help`).toBe(0);
    expect(help.stdout).toContain(name);
  }
  const checkin = await execa("agent-checkin-cli", ["--agent-id", "packaged", "--confirm", "--json"], { env, cwd: work });
  expect(JSON.parse(checkin.stdout)).toMatchObject({ agent_id: "packaged", action: "register_and_start_session" });
});
