// Read-only Git facts for writer admission and release. execa with argument arrays only; the caller's GIT_*
// variables are dropped so GIT_DIR or GIT_WORK_TREE cannot point a check at another repository, and
// --no-optional-locks keeps `status` from rewriting the index: reading a worktree never changes its bytes.
import { createHash } from "node:crypto";
import { execa } from "execa";
import { writeCommitTree } from "./git-tree.ts";

export type GitErrorKind = "not_installed" | "not_a_repository" | "failed" | "timeout";

export class GitError extends Error {
  constructor(
    readonly kind: GitErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "GitError";
  }
}

const GIT_TIMEOUT_MS = 20_000;
/** Reading every blob of a large commit takes longer than one query. */
const TREE_TIMEOUT_MS = 300_000;
const MAX_BUFFER = 64 * 1024 * 1024;

const curatedEnv = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const curated: Record<string, string> = { LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" };
  for (const key of ["PATH", "HOME", "XDG_CONFIG_HOME"]) {
    const value = env[key];
    if (value !== undefined) curated[key] = value;
  }
  return curated;
};

interface GitOutcome {
  stdout: Buffer;
  exitCode: number;
}

const runGit = async (worktree: string, args: readonly string[], env: Readonly<Record<string, string | undefined>>) => {
  const result = await execa("git", ["--no-optional-locks", "-C", worktree, ...args], {
    env: curatedEnv(env),
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    encoding: "buffer",
    stripFinalNewline: false,
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: MAX_BUFFER,
  });
  const failure = result as { code?: unknown };
  if (failure.code === "ENOENT") throw new GitError("not_installed", "git was not found on PATH");
  if (result.timedOut) throw new GitError("timeout", `git ${args[0]} did not finish within ${GIT_TIMEOUT_MS} ms`);
  return { stdout: Buffer.from(result.stdout as Uint8Array), exitCode: result.exitCode ?? -1 } satisfies GitOutcome;
};

const text = (outcome: GitOutcome): string => outcome.stdout.toString("utf8").trim();

export interface WorktreeLayout {
  topLevel: string;
  gitDir: string;
  commonDir: string;
}

/** Git facts about one worktree; every method answers from a fresh git call. */
export interface Git {
  /** The worktree root and its git dirs (absolute); a main checkout has gitDir === commonDir. */
  layout(): Promise<WorktreeLayout>;
  /** The checked-out branch, or null when HEAD is detached. */
  branch(): Promise<string | null>;
  /** The full object name `rev` resolves to as a commit, or null. */
  commit(rev: string): Promise<string | null>;
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /** SHA-256 of the exact bytes of `git status --porcelain=v1 --untracked-files=all` (what `| sha256sum` prints). */
  statusSha256(): Promise<string>;
  /** The parentless commits reachable from `rev`, sorted. */
  rootCommits(rev: string): Promise<string[]>;
  /** The tree entry at a repo-relative path of a commit (mode such as 100644 or 120000, and object id), or null. */
  treeEntry(commit: string, path: string): Promise<{ mode: string; type: string; oid: string } | null>;
  /** The exact bytes of a blob object. */
  blob(oid: string): Promise<Buffer>;
  /**
   * Writes the commit's tree into an empty directory from Git's objects alone, byte for byte whatever the commit's
   * .gitattributes say (no export-ignore, export-subst, eol or filter); the worktree is not touched.
   */
  writeTree(commit: string, into: string): Promise<void>;
}

export const createGit = (worktree: string, env: Readonly<Record<string, string | undefined>> = process.env): Git => {
  const git = (args: readonly string[]) => runGit(worktree, args, env);
  const checked = async (args: readonly string[]): Promise<GitOutcome> => {
    const outcome = await git(args);
    if (outcome.exitCode !== 0) throw new GitError("failed", `git ${args.slice(0, 2).join(" ")} failed in the worktree`);
    return outcome;
  };
  return {
    layout: async () => {
      const outcome = await git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"]);
      if (outcome.exitCode !== 0) throw new GitError("not_a_repository", `${worktree} is not inside a Git worktree`);
      const [topLevel = "", gitDir = "", commonDir = ""] = text(outcome).split("\n");
      return { topLevel, gitDir, commonDir };
    },
    branch: async () => {
      const outcome = await git(["symbolic-ref", "--quiet", "--short", "HEAD"]);
      return outcome.exitCode === 0 ? text(outcome) : null;
    },
    commit: async (rev) => {
      const outcome = await git(["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
      return outcome.exitCode === 0 ? text(outcome) : null;
    },
    isAncestor: async (ancestor, descendant) => (await git(["merge-base", "--is-ancestor", ancestor, descendant])).exitCode === 0,
    statusSha256: async () => {
      const outcome = await checked(["status", "--porcelain=v1", "--untracked-files=all"]);
      return createHash("sha256").update(outcome.stdout).digest("hex");
    },
    rootCommits: async (rev) =>
      text(await checked(["rev-list", "--max-parents=0", rev]))
        .split("\n")
        .filter((line) => line !== "")
        .sort(),
    treeEntry: async (commit, path) => {
      const line = (await checked(["ls-tree", "--full-tree", "-z", commit, "--", path])).stdout.toString("utf8");
      const match = /^(\d{6}) (\w+) ([0-9a-f]+)\t([^\0]*)\0/.exec(line);
      return match && match[4] === path ? { mode: match[1] as string, type: match[2] as string, oid: match[3] as string } : null;
    },
    blob: async (oid) => (await checked(["cat-file", "blob", oid])).stdout,
    writeTree: async (commit, into) => {
      const listing = (await checked(["ls-tree", "-r", "-z", "--full-tree", `${commit}^{tree}`])).stdout;
      const streamed = (args: readonly string[], input: string) =>
        execa("git", ["--no-optional-locks", "-C", worktree, ...args], {
          env: curatedEnv(env),
          extendEnv: false,
          reject: false,
          input,
          buffer: false,
          stderr: "ignore",
          timeout: TREE_TIMEOUT_MS,
        });
      try {
        await writeCommitTree(listing, into, streamed);
      } catch (error) {
        // A file system error's message holds the (writer-chosen) path; its code says enough.
        const code = (error as { code?: unknown }).code;
        const why = typeof code === "string" ? `a path of its tree could not be written (${code})` : (error as Error).message;
        throw new GitError("failed", `could not copy commit ${commit}: ${why}`);
      }
    },
  };
};
