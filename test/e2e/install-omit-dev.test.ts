// `npm ci --omit=dev` is the install for people who only use the binaries (README, Quick start): in a copy of the
// checkout with no node_modules and no dist/, it installs no test or lint tool, its prepare step still builds the
// compiled executable, and the launchers (both forms), the Skills' hooks and --help all work from it.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";

const work = mkdtempSync(join(tmpdir(), "ac-omit-dev-"));
const checkout = join(work, "agent-computer");
let installLog = "";

afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  // What a clone has: the tracked files and any new ones not ignored (node_modules/, dist/ and test-clients' are).
  const listed = await execa("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: repoRoot });
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    if (!existsSync(join(repoRoot, file))) continue;
    mkdirSync(dirname(join(checkout, file)), { recursive: true });
    cpSync(join(repoRoot, file), join(checkout, file));
  }
  const install = await execa("npm", ["ci", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: checkout,
    env: { npm_config_loglevel: "warn" },
    reject: false,
  });
  installLog = `${install.stdout}\n${install.stderr}`;
  expect(install.exitCode, installLog).toBe(0);
}, 300_000);

const env = () => ({ PATH: "/usr/bin:/bin", HOME: work, AGENT_COMPUTER_HOME: join(work, "state"), NO_COLOR: "1" });
const bin = (name: string) => join(checkout, "bin", name);

test("the README's Quick start documents it", () => {
  const quickStart = readFileSync(join(repoRoot, "README.md"), "utf8")
    .split(/^## /m)
    .find((s) => s.startsWith("Quick start"));
  expect(quickStart).toContain("`npm ci --omit=dev`");
});

test("it installs the runtime only, builds dist/, and warns of no engine but mcporter's", () => {
  for (const tool of ["vitest", "typescript", "@biomejs/biome", "vite", "playwright-core"]) {
    expect(existsSync(join(checkout, "node_modules", tool)), tool).toBe(false);
  }
  expect(existsSync(join(checkout, "node_modules/bun/bin/bun.exe"))).toBe(true);
  expect(existsSync(join(checkout, "dist/agent-computer"))).toBe(true);
  const warned = [...installLog.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((m) => m[1] as string);
  // commander 15 is mcporter's own dependency (node_modules/mcporter/node_modules/commander).
  expect(warned.filter((name) => !/^(mcporter|commander@15)\b/.test(name))).toEqual([]);
});

test("the launchers answer --help, write and read, in the compiled and the TypeScript form", async () => {
  for (const form of ["compiled", "source"]) {
    const formEnv = { ...env(), AGENT_COMPUTER_FORM: form };
    const help = await execa(bin("agent-inbox-cli"), ["--help"], { env: formEnv, extendEnv: false, reject: false });
    expect(help.exitCode, `${form}: ${help.stderr}`).toBe(0);
    expect(help.stdout).toContain("agent-inbox-cli");
    const agentId = `omit-dev-${form}`;
    const checkin = await execa(bin("agent-checkin-cli"), ["--agent-id", agentId, "--confirm", "--json"], {
      env: formEnv,
      extendEnv: false,
      reject: false,
    });
    expect(checkin.exitCode, `${form}: ${checkin.stderr}`).toBe(0);
    expect(JSON.parse(checkin.stdout)).toMatchObject({ agent_id: agentId });
    const list = await execa(bin("agents-list-cli"), ["--json"], { env: formEnv, extendEnv: false, reject: false });
    expect(list.exitCode, `${form}: ${list.stderr}`).toBe(0);
    const agents = (JSON.parse(list.stdout) as { agents: { agent_id: string }[] }).agents.map((a) => a.agent_id);
    expect(agents).toContain(agentId);
  }
});

test("the agent-mesh Skill's hooks run from it", async () => {
  const skill = readFileSync(join(checkout, "skills/agent-mesh/SKILL.md"), "utf8");
  expect(skill).toContain("agent-inbox-cli");
  const cwd = join(work, "project");
  mkdirSync(cwd, { recursive: true });
  const input = JSON.stringify({ cwd, session_id: "5d9a0c2e-7b1f-4e3a-8c6d-0f1e2d3c4b5a", hook_event_name: "SessionStart" });
  const start = await execa(join(checkout, "skills/agent-mesh/hooks/session-start"), ["claude"], {
    input,
    env: env(),
    extendEnv: false,
    reject: false,
  });
  expect(start.exitCode, start.stderr).toBe(0);
  const context = JSON.parse(start.stdout).hookSpecificOutput.additionalContext as string;
  expect(context).toContain("checked in as claude-project-");
  const mail = await execa(join(checkout, "skills/agent-mesh/hooks/mail-waiting"), ["claude"], {
    input: JSON.stringify({ cwd, session_id: "5d9a0c2e-7b1f-4e3a-8c6d-0f1e2d3c4b5a", hook_event_name: "Stop" }),
    env: env(),
    extendEnv: false,
    reject: false,
  });
  expect(mail.exitCode, mail.stderr).toBe(0);
});
