// Start-up is a feature (spec rule 11): a binary loads its own command module and nothing of the other binaries, and
// commander only once argv is parsed. Checked on the static import graph (dynamic import() edges are where laziness
// lives), so the test holds for the source and the compiled form alike.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");
const CLI = join(SRC, "cli");
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Files (and bare packages) a module loads before any of its code runs. */
const staticGraph = (entry: string): { files: Set<string>; packages: Set<string> } => {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      const spec = match[1] as string;
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec);
        if (target.endsWith(".ts")) visit(target);
      } else packages.add(spec);
    }
  };
  visit(entry);
  return { files, packages };
};

/** The command modules the registry loads lazily: every import() target in the cli families that is a cli module. */
const lazyTargets = (): string[] => {
  const targets = new Set<string>();
  for (const family of readdirSync(CLI, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== "kernel")) {
    for (const file of readdirSync(join(CLI, family.name)).filter((f) => f.endsWith(".ts"))) {
      const path = join(CLI, family.name, file);
      for (const match of readFileSync(path, "utf8").matchAll(DYNAMIC_IMPORT)) {
        const target = resolve(dirname(path), match[1] as string);
        // Only command modules: a family may also defer a driver or an adapter the same way.
        if (dirname(dirname(target)) === CLI) targets.add(target);
      }
    }
  }
  return [...targets].sort();
};

const targets = lazyTargets();

describe("lazy imports", () => {
  test("the entry point loads no command module and not commander", () => {
    const { files, packages } = staticGraph(join(CLI, "main.ts"));
    expect(targets.length).toBeGreaterThan(20);
    expect([...files].filter((f) => targets.includes(f)).map((f) => relative(SRC, f))).toEqual([]);
    expect(packages.has("commander")).toBe(false);
  });

  test.each(targets.map((t) => [relative(CLI, t), t] as const))("%s loads no other command module", (_label, target) => {
    const { files } = staticGraph(target);
    const others = [...files].filter((f) => f !== target && targets.includes(f));
    expect(others.map((f) => relative(CLI, f))).toEqual([]);
  });
});
