// One convention for a binary's subcommands, in every family: each subcommand is its own file whose default export is
// the command (`export default defineCommand(...)`), and the binary loads it lazily with
// `() => import("./<noun>-<subcommand>.ts").then((m) => m.default)`. Walks the real registry, so a new binary or
// subcommand is checked without being listed here.
import { describe, expect, test } from "vitest";
import { binaries } from "../../app/agent_computer/src/cli/binaries.ts";
import { singleCommand } from "../../app/agent_computer/src/cli/kernel/binary.ts";
import type { BinaryDef } from "../../app/agent_computer/src/cli/kernel/command.ts";

/**
 * Binaries whose files other branches are changing at the same time; each is split once that branch is merged, and
 * the lead empties this list then. A listed binary that already follows the convention fails below, so the list
 * cannot go stale.
 */
const SPLIT_ON_ANOTHER_BRANCH: ReadonlySet<string> = new Set([]);

// The test runner rewrites `import(` to its own loader and the path to a root-relative one; both forms are one lazy
// import of one file.
const DEFAULT_LOADER =
  /^\(\)\s*=>\s*(?:import|__vite_ssr_dynamic_import__)\(\s*"([^"]+\.ts)"\s*\)\.then\(\(?(\w+)\)?\s*=>\s*\2\.default\)$/;
const SINGLE_COMMAND = String(singleCommand(async () => ({ default: undefined as never })));

/** The file a loader imports, if the loader is exactly one lazy import of that file's default export. */
const defaultImportOf = (load: () => unknown): string | undefined => String(load).trim().match(DEFAULT_LOADER)?.[1];

/** What breaks the convention in one binary: loaders that are not a default import, files that serve two subcommands. */
const breaches = (binary: BinaryDef): string[] => {
  const found: string[] = [];
  const fileOf = new Map<string, string>();
  for (const [key, load] of Object.entries(binary.subcommands ?? {})) {
    const file = defaultImportOf(load);
    if (file === undefined) {
      found.push(`${key}: loader is not () => import("./<file>.ts").then((m) => m.default): ${String(load)}`);
      continue;
    }
    const other = fileOf.get(file);
    if (other !== undefined) found.push(`${key}: loads ${file}, which already serves ${other}`);
    fileOf.set(file, key);
  }
  return found;
};

const loaded = async (): Promise<[string, BinaryDef][]> =>
  Promise.all(Object.entries(binaries).map(async ([name, load]): Promise<[string, BinaryDef]> => [name, await load()]));

/** A loader that reads as `text`, for checking the check. */
const loaderReading = (text: string) => Object.assign(async () => ({}) as never, { toString: () => text });

describe("one file per subcommand, loaded by its default export", () => {
  test("every binary is loaded through a default export (its own file's, or singleCommand's)", async () => {
    const wrong = Object.entries(binaries)
      .filter(([name]) => !SPLIT_ON_ANOTHER_BRANCH.has(name))
      .filter(([, load]) => String(load) !== SINGLE_COMMAND && defaultImportOf(load) === undefined)
      .map(([name, load]) => `${name}: ${String(load)}`);
    expect(wrong).toEqual([]);
  });

  test("no two subcommands of a binary share a file, and each loader takes m.default", async () => {
    const found: string[] = [];
    for (const [name, binary] of await loaded()) {
      if (SPLIT_ON_ANOTHER_BRANCH.has(name)) continue;
      found.push(...breaches(binary).map((breach) => `${name} ${breach}`));
    }
    expect(found).toEqual([]);
  });

  test("each subcommand's file holds that subcommand (its name is the binary and the key)", async () => {
    const misnamed: string[] = [];
    for (const [name, binary] of await loaded()) {
      for (const [key, load] of Object.entries(binary.subcommands ?? {})) {
        const command = await load();
        if (command.name !== `${name} ${key}`) misnamed.push(`${name} ${key}: loads ${command.name}`);
      }
    }
    expect(misnamed).toEqual([]);
  });

  test("the binaries waiting for another branch's split still need it (else take them off the list)", async () => {
    const byName = new Map((await loaded()).map(([name, binary]) => [name, binary]));
    for (const name of SPLIT_ON_ANOTHER_BRANCH) {
      const binary = byName.get(name);
      expect(binary, `${name} is not in the registry`).toBeDefined();
      expect(breaches(binary as BinaryDef), `${name} follows the convention now: remove it from the list`).not.toEqual([]);
    }
  });

  test("the check itself tells a shared file and a named export from the convention", () => {
    const shared: BinaryDef = {
      name: "x-cli",
      summary: "",
      subcommands: {
        a: loaderReading('() => import("./x-a.ts").then((m) => m.default)'),
        b: loaderReading('() => import("./x-a.ts").then((m) => m.default)'),
        c: loaderReading('() => import("./x-commands.ts").then((m) => m.cCommand)'),
      },
    };
    expect(breaches(shared)).toEqual(["b: loads ./x-a.ts, which already serves a", expect.stringMatching(/^c: loader is not/)]);
  });
});
