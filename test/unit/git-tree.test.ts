// A commit's tree written from Git's objects (adapters/git-tree.ts), against real repositories: large and shared
// blobs arrive whole through one cat-file stream, and a tree Git itself would never check out (a `..` or `.git`
// entry, which `git mktree` accepts) is refused before anything lands outside the target directory.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, test } from "vitest";
import { createGit, GitError } from "../../app/agent_computer/src/adapters/git.ts";
import { git, headOf, makeRepo } from "../helpers/git-repos.ts";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const newRepo = async () => {
  const main = await makeRepo();
  made.push(join(main, ".."));
  return main;
};

const fresh = (name: string) => {
  const dir = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", `${name}-`));
  made.push(dir);
  mkdirSync(join(dir, "into"));
  return join(dir, "into");
};

/** A commit whose root tree holds exactly `entries` (mode, type, oid, name), made with plumbing. */
const commitOfTree = async (repo: string, entries: string[]): Promise<string> => {
  const tree = (await execa("git", ["-C", repo, "mktree"], { input: `${entries.join("\n")}\n` })).stdout.trim();
  return (
    await execa("git", ["-C", repo, "commit-tree", tree, "-m", "crafted"], {
      env: { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x.invalid" },
    })
  ).stdout.trim();
};

const hashObject = async (repo: string, text: string) =>
  (await execa("git", ["-C", repo, "hash-object", "-w", "--stdin"], { input: text })).stdout.trim();

describe("writeTree", () => {
  test("a 6 MiB blob, one blob at two paths and many small files arrive byte for byte", async () => {
    const repo = await newRepo();
    const big = randomBytes(6 * 1024 * 1024);
    writeFileSync(join(repo, "big.bin"), big);
    writeFileSync(join(repo, "same-a.txt"), "same\n");
    writeFileSync(join(repo, "same-b.txt"), "same\n");
    mkdirSync(join(repo, "many"));
    for (let i = 0; i < 300; i += 1) writeFileSync(join(repo, "many", `f${i}.txt`), `file ${i}\n`);
    await git(repo, "add", ".");
    await git(repo, "commit", "-q", "-m", "blobs");
    const into = fresh("tree");
    await createGit(repo).writeTree(await headOf(repo), into);
    expect(readFileSync(join(into, "big.bin")).equals(big)).toBe(true);
    expect(readFileSync(join(into, "same-a.txt"), "utf8")).toBe("same\n");
    expect(readFileSync(join(into, "same-b.txt"), "utf8")).toBe("same\n");
    expect(readdirSync(join(into, "many"))).toHaveLength(300);
    expect(readFileSync(join(into, "many", "f299.txt"), "utf8")).toBe("file 299\n");
  });

  test.each([
    ["a .. directory", ".."],
    ["a .git directory", ".git"],
    ["a .GIT directory", ".GIT"],
  ])("refuses a tree with %s and writes nothing outside the target", async (_why, name) => {
    const repo = await newRepo();
    const blob = await hashObject(repo, "planted\n");
    const inner = (await execa("git", ["-C", repo, "mktree"], { input: `100644 blob ${blob}\tplanted.txt\n` })).stdout.trim();
    const commit = await commitOfTree(repo, [`040000 tree ${inner}\t${name}`, `100644 blob ${blob}\tok.txt`]);
    const into = fresh("crafted");
    const error = await createGit(repo)
      .writeTree(commit, into)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toContain("a path git would not check out");
    expect(existsSync(join(into, "..", "planted.txt"))).toBe(false);
    expect(readdirSync(into)).toEqual([]);
  });

  test("an unknown commit is a GitError, not a crash", async () => {
    const repo = await newRepo();
    const error = await createGit(repo)
      .writeTree("0".repeat(40), fresh("missing"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
  });
});
