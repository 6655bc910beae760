// A launcher in a git checkout runs dist/ only when it was built from the commit checked out; after a `git pull`
// without `npm run build` it runs the source form. The launcher is the real generated one, copied into a scratch
// tree whose dist/agent-computer and project Bun are stand-ins that say which of them ran.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, test } from "vitest";
import { binaryForm, binPath, repoRoot } from "../helpers/bin.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const scratch = mkdtempSync(join(tmpdir(), "ac-stale-dist-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let trees = 0;
interface Tree {
  builtFrom?: string;
  /** .git/HEAD's content; with `branch`, the loose ref file's. */
  head?: string;
  branch?: string;
}
const makeTree = ({ builtFrom, head, branch }: Tree): string => {
  const root = join(scratch, `t${trees++}`);
  const stub = (path: string, says: string) => {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, `#!/bin/sh\necho ${says}\n`);
    chmodSync(path, 0o755);
  };
  mkdirSync(join(root, "bin"), { recursive: true });
  copyFileSync(binPath("agent-inbox-cli"), join(root, "bin/agent-inbox-cli"));
  stub(join(root, "dist/agent-computer"), "dist");
  stub(join(root, "node_modules/bun/bin/bun.exe"), "source");
  if (builtFrom !== undefined) writeFileSync(join(root, "dist/built-from"), `${builtFrom}\n`);
  if (head !== undefined) {
    mkdirSync(join(root, ".git/refs/heads"), { recursive: true });
    writeFileSync(join(root, ".git/HEAD"), `${head}\n`);
    if (branch !== undefined) writeFileSync(join(root, ".git/refs/heads/main"), `${branch}\n`);
  }
  return root;
};
const ran = async (root: string, form?: string): Promise<string> => {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  if (form) env.AGENT_COMPUTER_FORM = form;
  const r = await execa(join(root, "bin/agent-inbox-cli"), ["--help"], { env, extendEnv: false, reject: false });
  expect(r.stderr, "nothing on stderr when it is not a terminal").toBe("");
  return String(r.stdout).trim();
};

describe("launchers and a dist/ built from another commit", () => {
  test.each<[string, Tree, string]>([
    ["built from the branch's commit", { builtFrom: A, head: "ref: refs/heads/main", branch: A }, "dist"],
    ["the branch moved on (a pull without a rebuild)", { builtFrom: A, head: "ref: refs/heads/main", branch: B }, "source"],
    ["a detached HEAD at the built commit", { builtFrom: A, head: A }, "dist"],
    ["a detached HEAD elsewhere", { builtFrom: A, head: B }, "source"],
    ["a packed ref it cannot read without a fork", { builtFrom: A, head: "ref: refs/heads/main" }, "dist"],
    ["no record of the build's commit", { head: "ref: refs/heads/main", branch: B }, "dist"],
    ["no .git directory (an installed package)", { builtFrom: A }, "dist"],
  ])("%s: %s runs", async (_label, tree, expected) => {
    expect(await ran(makeTree(tree))).toBe(expected);
  });

  test("AGENT_COMPUTER_FORM chooses the form whatever the commits say", async () => {
    const stale = makeTree({ builtFrom: A, head: B });
    expect(await ran(stale, "compiled")).toBe("dist");
    const fresh = makeTree({ builtFrom: A, head: A });
    expect(await ran(fresh, "source")).toBe("source");
  });

  test("on a terminal the stale launcher says why it runs the source form", async () => {
    const stale = makeTree({ builtFrom: A, head: B });
    // script(1) gives the launcher a pseudo-terminal; its output is what the terminal showed, stderr included.
    const r = await execa("script", ["-qec", `${join(stale, "bin/agent-inbox-cli")} --help`, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      extendEnv: false,
      reject: false,
    });
    expect(String(r.stdout)).toContain(
      "agent-computer: dist/ was built from another commit; running the slower source form (npm run build)",
    );
    expect(String(r.stdout)).toContain("source");
  });

  // The compiled pass runs dist/ by name (AGENT_COMPUTER_FORM=compiled): it must be built from this commit.
  const checkout = existsSync(join(repoRoot, ".git/HEAD"));
  test.skipIf(binaryForm !== "compiled" || !checkout)(
    "the build recorded the commit checked out (compiled pass in a git checkout only)",
    async () => {
      const head = await execa("git", ["rev-parse", "--verify", "HEAD"], { cwd: repoRoot });
      expect(readFileSync(join(repoRoot, "dist/built-from"), "utf8").trim()).toBe(String(head.stdout).trim());
    },
  );
});
