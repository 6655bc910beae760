// What `npm ci` brings is the project's install, not the developers' test kit: the real AI clients a few tests
// drive live in test-clients/ with their own pinned manifest and lock file, and every package the project's lock
// file installs accepts the project's Node floor, except mcporter's own tree (it runs only on the bundled Bun).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";

interface LockPackage {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}
interface Lock {
  packages: Record<string, LockPackage>;
}

const json = <T>(path: string): T => JSON.parse(readFileSync(join(repoRoot, path), "utf8")) as T;
const own = json<{
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
}>("package.json");
const CLIENTS = ["@anthropic-ai/claude-code", "@openai/codex"];

test("the project's package.json and lock file carry neither AI client", () => {
  const lock = json<Lock>("package-lock.json");
  for (const name of CLIENTS) {
    expect(own.dependencies).not.toHaveProperty(name);
    expect(own.devDependencies).not.toHaveProperty(name);
    expect(Object.keys(lock.packages).filter((path) => path.includes(name))).toEqual([]);
  }
});

test("test-clients/ pins each client to an exact version, in step with its lock file", () => {
  const manifest = json<{ dependencies: Record<string, string>; allowScripts: Record<string, boolean> }>(
    "test-clients/package.json",
  );
  const lock = json<Lock>("test-clients/package-lock.json");
  expect(Object.keys(manifest.dependencies).sort()).toEqual(CLIENTS);
  for (const [name, version] of Object.entries(manifest.dependencies)) {
    expect(version, name).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(version);
  }
  // Claude Code's postinstall puts its native executable in place; npm 11 runs only approved scripts.
  expect(manifest.allowScripts).toEqual({ "@anthropic-ai/claude-code": true });
});

test("every package `npm ci` installs accepts the Node floor, mcporter's tree excepted (no EBADENGINE but its)", () => {
  const floor = /^>=(\d+\.\d+\.\d+)$/.exec(own.engines.node)?.[1] as string;
  expect(floor, "engines.node is >=X.Y.Z").toBeDefined();
  const lock = json<Lock>("package-lock.json");
  const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (!path || !range || Bun.semver.satisfies(floor, range)) return [];
    return path === "node_modules/mcporter" || path.startsWith("node_modules/mcporter/") ? [] : [`${path} ${range}`];
  });
  expect(refused).toEqual([]);
});
