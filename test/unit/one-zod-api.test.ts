// One zod API in app/: zod/mini, which starts faster than classic zod (bench/results/zod-mini.json). zod/v4/core
// (the parser, JSON Schema and config the kernel and the entry use) and zod/v4/locales (the English messages) are
// the shared core both APIs sit on, not classic zod.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");

/**
 * Files still on classic zod while their conversion is under way on other branches (the Herdr family and the
 * worker). Empty this list as they land: an entry whose file no longer imports classic zod fails the test, and the
 * goal is an empty list.
 */
const PENDING_CLASSIC_ZOD_FILES: readonly string[] = [];

/** Every module specifier a file loads: static imports and re-exports, side-effect imports, import() and require(). */
const SPECIFIER = /(?:\bfrom\s*|^\s*import\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"']+)["']/gm;

/** Why a zod specifier is not the project's one API (classic zod, or mini under another name), or undefined. */
const wrongZod = (specifier: string): string | undefined => {
  if (specifier !== "zod" && !specifier.startsWith("zod/")) return undefined;
  if (specifier === "zod/mini" || specifier === "zod/v4/core" || specifier.startsWith("zod/v4/locales/")) return undefined;
  return `imports "${specifier}": use "zod/mini" (import * as z from "zod/mini")`;
};

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });

/** Each file under app/ that loads zod, with the zod specifiers it uses. */
const zodImports = (): Map<string, string[]> => {
  const found = new Map<string, string[]>();
  for (const path of sourceFiles(SRC)) {
    const specs = [...readFileSync(path, "utf8").matchAll(SPECIFIER)]
      .map((m) => m[1] as string)
      .filter((s) => s === "zod" || s.startsWith("zod/"));
    if (specs.length > 0) found.set(relative(SRC, path), specs);
  }
  return found;
};

describe("app/ uses one zod API, zod/mini", () => {
  const imports = zodImports();
  const classicIn = (file: string): string[] =>
    (imports.get(file) ?? []).map(wrongZod).filter((why): why is string => why !== undefined);

  test("it sees the code (a walk that finds nothing proves nothing)", () => {
    expect([...imports.values()].filter((specs) => specs.includes("zod/mini")).length).toBeGreaterThan(30);
    expect(imports.get("cli/kernel/parse.ts")).toEqual(["zod/v4/core"]);
  });

  test("no file outside the pending list imports classic zod", () => {
    const offenders = [...imports.keys()]
      .filter((file) => !PENDING_CLASSIC_ZOD_FILES.includes(file))
      .flatMap((file) => classicIn(file).map((why) => `${file} ${why}`));
    expect(offenders).toEqual([]);
  });

  test("every pending file still imports classic zod (else take it off PENDING_CLASSIC_ZOD_FILES)", () => {
    expect(PENDING_CLASSIC_ZOD_FILES.filter((file) => classicIn(file).length === 0)).toEqual([]);
  });

  test("the rule catches what it is for", () => {
    for (const classic of ["zod", "zod/v4", "zod/v3", "zod/v4/classic", "zod/v4-mini"]) expect(wrongZod(classic)).toBeDefined();
    for (const allowed of ["zod/mini", "zod/v4/core", "zod/v4/locales/en.js", "zodiac", "./zod.ts"])
      expect(wrongZod(allowed)).toBeUndefined();
    const sample = 'import { z } from "zod";\nconst m = await import("zod/v4");\nimport * as z2 from "zod/mini";';
    expect([...sample.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(["zod", "zod/v4", "zod/mini"]);
  });
});
