// The import graph of app/ must agree with the README's layout (Development): arrows only point down the layers
// cli -> worker -> console/wake -> domain -> store/local -> adapters, errors.ts below everything. Units of the same rank
// are siblings and never import each other, so no folder cycle can form. Type-only imports count too: a type
// is a dependency of the design even when the bundler drops it.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");

/** Longest prefix wins. A higher rank may import a lower one; equal ranks are siblings. */
const UNITS: readonly (readonly [prefix: string, rank: number])[] = [
  ["cli/main.ts", 91],
  ["cli/binaries.ts", 90],
  ["cli/", 80], // each family folder is its own unit (see unitOf)
  ["cli/kernel/", 70],
  ["worker/", 60],
  ["sdk/", 60],
  ["console/", 55],
  // The one auto-wake service: the worker and agent-wake-cli run it; a sibling of console, which never wakes anyone.
  ["wake/", 55],
  // Retention and export for the operator and the worker: over the mesh (authentication) and webhooks' retention.
  ["domain/admin/", 48],
  ["domain/outbound-webhooks/", 47],
  ["domain/agents/", 46],
  ["domain/automation/", 45],
  ["domain/herdr/", 45],
  ["domain/tasks/", 44],
  ["domain/mesh/", 43],
  ["domain/wake/", 42],
  // File reservations: below herdr/, whose writer lanes' scopes may become reservations.
  ["domain/reservations/", 42],
  ["domain/identity/", 41],
  ["domain/", 40],
  // The operator's tools (agent-computer-admin): backup, restore and inspection reach each dialect's driver and
  // open the store as every command does.
  ["store/admin/", 31],
  ["store/open.ts", 30],
  ["store/sqlite/", 28],
  ["store/postgres/", 28],
  ["store/sql/", 27],
  ["store/", 26],
  ["local/", 25],
  ["adapters/", 20],
  ["paths.ts", 10],
  ["errors.ts", 5],
  ["command-line.ts", 5],
  ["close-words.ts", 5],
  ["agent-id.ts", 5],
  ["terminal-text.ts", 5],
  ["token-shape.ts", 5],
  ["json-depth.ts", 5],
  [relative(SRC, resolve(import.meta.dirname, "../../package.json")), 0], // read by cli/kernel/version.ts
  ["types.d.ts", 5],
];

/** Store internals: only the store itself (and the composition root, through store/open.ts) reaches them. */
const STORE_INTERNAL = /^store\/(sql|sqlite|postgres)\//;

/**
 * Imports that break the rules on purpose. Each says why; an entry that no import uses any more fails the test,
 * so the list cannot rot.
 */
const ALLOWED: Record<string, string> = {};

interface Unit {
  name: string;
  rank: number;
}

const unitOf = (file: string): Unit => {
  let best: readonly [string, number] | undefined;
  for (const entry of UNITS) {
    if (file.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  if (!best) throw new Error(`no layer for ${file}: add it to UNITS`);
  const name = best[0] === "cli/" ? file.split("/").slice(0, 2).join("/") : best[0];
  return { name, rank: best[1] };
};

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

const edges = (): { from: string; to: string }[] =>
  sourceFiles(SRC).flatMap((path) => {
    const from = relative(SRC, path);
    return [...readFileSync(path, "utf8").matchAll(IMPORT)].map((m) => ({
      from,
      to: relative(SRC, resolve(dirname(path), m[1] as string)),
    }));
  });

const violation = (from: string, to: string): string | undefined => {
  const a = unitOf(from);
  const b = unitOf(to);
  if (a.name === b.name) return undefined;
  if (STORE_INTERNAL.test(to) && !from.startsWith("store/")) return "store internals are reached only through the store port";
  if (b.rank > a.rank) return `upward import (${a.name} ${a.rank} -> ${b.name} ${b.rank})`;
  if (b.rank === a.rank) return `sibling import (${a.name} -> ${b.name})`;
  return undefined;
};

describe("the import graph of app/ follows the layers of the README's layout", () => {
  const all = edges();

  test("it sees the code (a walk that finds nothing proves nothing)", () => {
    expect(all.length).toBeGreaterThan(500);
    expect(all.some((e) => e.from.startsWith("cli/mesh/") && e.to.startsWith("domain/mesh/"))).toBe(true);
  });

  test("no import runs up the layers or across siblings, outside the written-down exceptions", () => {
    const found = all
      .map((e) => ({ key: `${e.from} -> ${e.to}`, why: violation(e.from, e.to) }))
      .filter((v) => v.why !== undefined && !(v.key in ALLOWED))
      .map((v) => `${v.key}: ${v.why}`);
    expect(found).toEqual([]);
  });

  test("every exception is still needed", () => {
    const used = new Set(all.map((e) => `${e.from} -> ${e.to}`));
    expect(Object.keys(ALLOWED).filter((key) => !used.has(key))).toEqual([]);
  });

  test("the rules catch what they are for", () => {
    expect(violation("domain/mesh/send.ts", "cli/kernel/errors.ts")).toMatch(/upward/);
    expect(violation("domain/identity/token.ts", "domain/mesh/session.ts")).toMatch(/upward/);
    expect(violation("cli/identity/task-post.ts", "cli/mesh/agent-send-cli.ts")).toMatch(/sibling/);
    expect(violation("console/routes.ts", "worker/log.ts")).toMatch(/upward/);
    expect(violation("console/routes.ts", "wake/wake-service.ts")).toMatch(/sibling/);
    expect(violation("wake/wake-service.ts", "cli/kernel/command-context.ts")).toMatch(/upward/);
    expect(violation("worker/auto-wake.ts", "wake/wake-service.ts")).toBeUndefined();
    expect(violation("domain/mesh/send.ts", "store/sql/db.ts")).toMatch(/store port/);
    expect(violation("cli/mesh/agent-send-cli.ts", "domain/mesh/send.ts")).toBeUndefined();
    expect(violation("domain/mesh/send.ts", "errors.ts")).toBeUndefined();
  });
});
