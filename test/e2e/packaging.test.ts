// `npm pack` produces a tarball that `npm install -g` installs with every binary on PATH and working; `npm ci`
// installs Bun and builds the compiled executable, with no dependency refusing the project's Node.

import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";
import { binaryNames } from "../helpers/registry.ts";

test("the packed tarball installs globally and every binary runs from PATH", { timeout: 300_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), "ac-pack-"));
  // --ignore-scripts: no rebuild of dist/ while other suites may be running it; the tarball takes dist/ as built.
  const pack = await execa("npm", ["pack", "--ignore-scripts", "--pack-destination", work], { cwd: repoRoot });
  const tarball = join(work, pack.stdout.trim().split("\n").at(-1) as string);
  expect(existsSync(tarball)).toBe(true);

  const prefix = join(work, "prefix");
  // A global install has no project package.json whose allowScripts npm reads: Bun's postinstall is allowed here.
  const install = [
    "install",
    "-g",
    tarball,
    "--allow-scripts=bun",
    "--prefix",
    prefix,
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
  ];
  await execa("npm", install, {
    env: { npm_config_loglevel: "error" },
  });
  const installed = readdirSync(join(prefix, "bin")).sort();
  expect(installed).toEqual(expect.arrayContaining(binaryNames));
  // npm links package.json "man" into the prefix's man1, where man finds it (MANPATH derives from PATH).
  const pages = readdirSync(join(prefix, "share/man/man1")).sort();
  expect(pages).toEqual(expect.arrayContaining(binaryNames.map((name) => `${name}.1`)));

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

const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    engines?: { node?: string };
    allowScripts?: Record<string, boolean>;
  };

describe("what `npm ci` does", () => {
  const own = manifest(repoRoot);

  test("it builds the compiled executable: prepare runs the build; no other lifecycle step builds again", () => {
    expect(own.scripts.prepare).toBe("bun scripts/build.ts");
    expect(own.scripts.build).toBe(own.scripts.prepare);
    // npm pack and publish run prepare as well: a prepack build would be a second one.
    expect(own.scripts.prepack).toBeUndefined();
    expect(own.scripts.postinstall).toBeUndefined();
  });

  test("bun's postinstall is approved in allowScripts, so npm 11 has nothing unreviewed to skip or warn about", async () => {
    expect(manifest(join(repoRoot, "node_modules/bun")).scripts.postinstall).toBeDefined();
    expect(own.allowScripts).toEqual({ bun: true });
    const listed = await execa("npm", ["install-scripts", "ls"], { cwd: repoRoot, reject: false });
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain("No packages with unreviewed install scripts");
  });

  // mcporter runs only on Bun (automation attempts call its CLI through the worker's Bun), never on Node:
  // its engines are checked against the Node version Bun implements. Its own engines ask for Node 24.
  const RUNS_ON_BUN_ONLY = new Set(["mcporter"]);
  test("every direct dependency's engines.node allows the project's Node floor, a Node 20", () => {
    const floor = /^>=(\d+\.\d+\.\d+)$/.exec(own.engines?.node ?? "")?.[1];
    expect(floor, "engines.node is >=X.Y.Z").toBeDefined();
    expect(Bun.semver.satisfies(floor as string, "20")).toBe(true);
    const refused = Object.keys({ ...own.dependencies, ...own.devDependencies }).flatMap((name) => {
      const range = manifest(join(repoRoot, "node_modules", name)).engines?.node;
      const runtime = RUNS_ON_BUN_ONLY.has(name) ? process.versions.node : (floor as string);
      return range && !Bun.semver.satisfies(runtime, range) ? [`${name} needs node ${range}, runs on ${runtime}`] : [];
    });
    expect(refused).toEqual([]);
  });
});
