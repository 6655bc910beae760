// A launcher in a checkout where `npm ci` never ran (no node_modules/, so no project Bun and no dist/) says to run it
// and exits 1, instead of the shell's bare "bun.exe: not found". The launchers are the real generated ones, copied
// into a scratch tree that has nothing else.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, test } from "vitest";
import { binPath } from "../helpers/bin.ts";

const scratch = mkdtempSync(join(tmpdir(), "ac-not-installed-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const checkout = (name: string, launchers: readonly string[]): string => {
  const root = join(scratch, name);
  mkdirSync(join(root, "bin"), { recursive: true });
  for (const launcher of launchers) copyFileSync(binPath(launcher), join(root, "bin", launcher));
  return root;
};

const run = (root: string, binary: string, env: Record<string, string> = {}) =>
  execa(join(root, "bin", binary), ["--help"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    extendEnv: false,
    reject: false,
  });

describe("a launcher before npm ci", () => {
  test.each(["agent-inbox-cli", "agent-computer-worker"])("%s says to run npm ci and exits 1", async (binary) => {
    const root = checkout(`plain-${binary}`, [binary]);
    const r = await run(root, binary);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `${binary}: ${root} has no node_modules/ (agent-computer is not installed there yet); run \`npm ci\` in ${root} first`,
    );
    expect(r.stderr).not.toContain("not found");
  });

  test("asked for the source form beside a built dist/, it says the same", async () => {
    const root = checkout("dist-only", ["agent-inbox-cli"]);
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist/agent-computer"), "#!/bin/sh\necho dist\n");
    chmodSync(join(root, "dist/agent-computer"), 0o755);
    expect((await run(root, "agent-inbox-cli")).stdout).toBe("dist");
    const r = await run(root, "agent-inbox-cli", { AGENT_COMPUTER_FORM: "source" });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("run `npm ci` in");
  });
});
