// Git facts for file reservations and their guard: where a repository is, what it is called, which paths a commit
// or a push touches, where its hooks live. execa with argument arrays only. The caller's GIT_* variables are dropped
// except GIT_INDEX_FILE: inside a pre-commit hook it names the index being committed (`git commit -a`, a partial
// commit), and the staged paths must be read from that one.
import { realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { execa } from "execa";
import { GitError } from "./git.ts";

const GIT_TIMEOUT_MS = 20_000;
const MAX_BUFFER = 64 * 1024 * 1024;
const ZERO_SHA = /^0+$/;

type Env = Readonly<Record<string, string | undefined>>;

const gitEnv = (env: Env): Record<string, string> => {
  const kept: Record<string, string> = { LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" };
  for (const key of ["PATH", "HOME", "XDG_CONFIG_HOME", "GIT_INDEX_FILE"]) {
    const value = env[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
};

const git = async (dir: string, args: readonly string[], env: Env): Promise<{ out: string; ok: boolean }> => {
  const result = await execa("git", ["-C", dir, ...args], {
    env: gitEnv(env),
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: MAX_BUFFER,
    stripFinalNewline: false,
  });
  if ((result as { code?: unknown }).code === "ENOENT") throw new GitError("not_installed", "git was not found on PATH");
  if (result.timedOut) throw new GitError("timeout", `git ${args[0]} did not finish within ${GIT_TIMEOUT_MS} ms`);
  return { out: String(result.stdout), ok: result.exitCode === 0 };
};

export interface RepositoryFacts {
  /** The working tree's root, as git prints it. */
  topLevel: string;
  /** The realpath of the git directory every worktree of this checkout shares. */
  commonDir: string;
  /** remote.origin.url, when set. */
  originUrl: string | null;
}

export const repositoryFacts = async (dir: string, env: Env): Promise<RepositoryFacts> => {
  const paths = await git(dir, ["rev-parse", "--show-toplevel", "--git-common-dir"], env);
  if (!paths.ok) throw new GitError("not_a_repository", `${dir} is not inside a git working tree`);
  const [topLevel = "", common = ""] = paths.out.split("\n");
  const commonDir = realpathSync(isAbsolute(common) ? common : join(dir, common));
  const origin = await git(dir, ["config", "--get", "remote.origin.url"], env);
  return { topLevel, commonDir, originUrl: origin.ok && origin.out.trim() ? origin.out.trim() : null };
};

const nulList = (out: string): string[] => out.split("\0").filter((p) => p.length > 0);

/** Paths the index being committed changes against HEAD (both sides of a rename), as repository paths. */
export const stagedPaths = async (topLevel: string, env: Env): Promise<string[]> => {
  const diff = await git(topLevel, ["diff", "--cached", "--name-only", "--no-renames", "-z"], env);
  if (!diff.ok) throw new GitError("failed", "git diff --cached failed");
  return nulList(diff.out);
};

/** One line of pre-push's stdin: `<local ref> <local sha> <remote ref> <remote sha>`. */
export interface PushedRef {
  localSha: string;
  remoteSha: string;
}

export const parsePushLines = (input: string): PushedRef[] =>
  input
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((words) => words.length === 4)
    .map(([, localSha = "", , remoteSha = ""]) => ({ localSha, remoteSha }));

/**
 * Paths changed by the commits a push sends: for each ref, the commits after the remote's tip (or, for a new branch
 * or a tip this clone lacks, after everything the remote-tracking refs already hold). A deleted ref sends none.
 */
export const pushedPaths = async (topLevel: string, refs: readonly PushedRef[], env: Env): Promise<string[]> => {
  const paths = new Set<string>();
  for (const ref of refs) {
    if (ZERO_SHA.test(ref.localSha)) continue;
    const known = !ZERO_SHA.test(ref.remoteSha) && (await git(topLevel, ["cat-file", "-e", `${ref.remoteSha}^{commit}`], env)).ok;
    const range = known ? [ref.localSha, `^${ref.remoteSha}`] : [ref.localSha, "--not", "--remotes"];
    const log = await git(topLevel, ["log", "--format=", "--name-only", "--no-renames", "-z", ...range], env);
    if (!log.ok) throw new GitError("failed", `git log ${ref.localSha} failed`);
    for (const path of nulList(log.out)) paths.add(path.replace(/^\n+/, ""));
  }
  return [...paths].filter((p) => p.length > 0);
};

/** The directory git runs this repository's hooks from (core.hooksPath when set), absolute. */
export const hooksDirectory = async (dir: string, env: Env): Promise<string> => {
  const out = await git(dir, ["rev-parse", "--path-format=absolute", "--git-path", "hooks"], env);
  if (!out.ok) throw new GitError("not_a_repository", `${dir} is not inside a git working tree`);
  return out.out.trim();
};
