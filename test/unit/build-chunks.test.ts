// The compiled form loads only what the invoked binary uses: scripts/build.ts bundles with the options of
// scripts/compile-options.ts, whose ESM code splitting turns each import() of the binary registry into a chunk of
// its own. Bundled here the same way (without compiling, whose output cannot be inspected, and without minifying,
// which drops the module path comments), the entry's static import graph must hold no command, and one command's
// graph no other command, no PostgreSQL driver and no worker.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundleOptions } from "../../scripts/compile-options.ts";

const root = join(import.meta.dirname, "..", "..");
const out = mkdtempSync(join(tmpdir(), "ac-chunks-"));

/** Chunk file → the source modules it holds, from the bundler's `// path` comments. */
const modulesOf = (chunk: string): string[] =>
  [...readFileSync(join(out, chunk), "utf8").matchAll(/^\/\/ (\S+\.[jt]s)$/gm)].map((m) => m[1] as string);

/** The chunks a chunk loads before it runs (its static imports), itself included. */
const staticGraph = (start: string): string[] => {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length > 0) {
    const chunk = stack.pop() as string;
    if (seen.has(chunk)) continue;
    seen.add(chunk);
    const text = readFileSync(join(out, chunk), "utf8");
    for (const m of text.matchAll(/^import\s+(?:[^"']*?from\s*)?["']\.\/([^"']+)["'];?/gm)) stack.push(normalize(m[1] as string));
  }
  return [...seen];
};

const modulesLoadedBy = (chunk: string): string[] => staticGraph(chunk).flatMap(modulesOf);

beforeAll(async () => {
  const built = await Bun.build({ ...bundleOptions([join(root, "app/agent_computer/src/cli/main.ts")]), outdir: out });
  expect(built.success, built.logs.join("\n")).toBe(true);
}, 60_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("chunks of the compiled form", () => {
  test("the entry loads no command module before it knows which binary it is", () => {
    const entry = modulesLoadedBy("main.js");
    expect(entry).toContain("app/agent_computer/src/cli/main.ts");
    expect(entry.filter((m) => /\/cli\/(mesh|identity|automation|worker|herdr)\/[^/]+-cli\.ts$/.test(m))).toEqual([]);
    expect(entry.filter((m) => m.includes("/store/") || m.includes("/src/worker/"))).toEqual([]);
  });

  test("agent-inbox-cli's chunk loads no other command, no PostgreSQL driver and no worker", () => {
    const chunk = readdirSync(out).find((f) => modulesOf(f).includes("app/agent_computer/src/cli/mesh/agent-inbox-cli.ts"));
    expect(chunk).toBeDefined();
    const loaded = modulesLoadedBy(chunk as string);
    expect(loaded.filter((m) => m.endsWith("-cli.ts") && !m.endsWith("/agent-inbox-cli.ts"))).toEqual([]);
    expect(loaded.filter((m) => m.includes("/store/postgres/") || m.includes("/src/worker/"))).toEqual([]);
  });

  test("commander's chunk requires node:child_process and node:fs only when they are used", () => {
    const chunk = readdirSync(out).find((f) => modulesOf(f).some((m) => m.endsWith("commander/lib/command.js")));
    expect(chunk).toBeDefined();
    const text = readFileSync(join(out, chunk as string), "utf8");
    expect(text).toMatch(/Proxy\(\{\}, \{ get: \(_, key\) => \w*require\(["'](node:)?child_process["']\)/);
    expect(text.match(/=\s*\w*require\(["'](node:)?(child_process|fs)["']\)/g)).toBeNull();
  });
});
