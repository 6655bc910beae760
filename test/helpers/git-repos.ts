// Real Git repositories and linked worktrees in temp dirs, plus fingerprints that prove nothing changed.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { execa } from "execa";

const gitEnv = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

export const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await execa("git", args, { cwd, env: gitEnv })).stdout.trim();

/** A main checkout on `main` with a first commit of a few files; returns its real path. */
export const makeRepo = async (): Promise<string> => {
  const root = realpathSync(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "repo-")));
  const main = join(root, "main");
  mkdirSync(join(main, "src", "api"), { recursive: true });
  mkdirSync(join(main, "docs"), { recursive: true });
  writeFileSync(join(main, "src", "api", "handler.ts"), "export const handler = 1;\n");
  writeFileSync(join(main, "docs", "guide.md"), "# guide\n");
  await git(main, "init", "-q", "-b", "main");
  await git(main, "add", ".");
  await git(main, "commit", "-q", "-m", "first");
  return main;
};

/** `git worktree add -b BRANCH ../NAME`: a linked worktree next to the main checkout. */
export const addWorktree = async (main: string, name: string, branch: string): Promise<string> => {
  const path = join(main, "..", name);
  await git(main, "worktree", "add", "-q", "-b", branch, path);
  return realpathSync(path);
};

export const headOf = (worktree: string): Promise<string> => git(worktree, "rev-parse", "HEAD");

/** What `git status --porcelain=v1 --untracked-files=all | sha256sum` prints. */
export const statusSha256 = async (worktree: string): Promise<string> => {
  const result = await execa("git", ["status", "--porcelain=v1", "--untracked-files=all"], {
    cwd: worktree,
    env: gitEnv,
    encoding: "buffer",
    stripFinalNewline: false,
  });
  return createHash("sha256")
    .update(result.stdout as Uint8Array)
    .digest("hex");
};

/** SHA-256 over every file (path and bytes) under dir, .git file or dir included. */
export const treeSha256 = (dir: string): string => {
  const hash = createHash("sha256");
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(`${relative(dir, path)}\0`).update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest("hex");
};
