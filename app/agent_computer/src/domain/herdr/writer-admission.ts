// Writer admission, re-read from Git independently of what the caller claims: an absolute linked worktree
// (never the main checkout) at its root, on the exact branch, HEAD, base and status digest, not a protected
// branch, with literal scopes and no Herdr agent already working inside it.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import { GitError } from "../../adapters/git.ts";
import { AppError } from "../../errors.ts";
import { withinDirectory } from "./directories.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { viaHerdr } from "./herdr-failure.ts";
import { normalizeScope, scopeProblem, scopesOverlap } from "./scopes.ts";

export interface GitExpectations {
  worktree: string;
  branch: string;
  baseCommit: string;
  expectedHead: string;
  expectedStatusSha256: string;
  protectedBranches: readonly string[];
}

export const refuse = (check: string, message: string): AppError =>
  new AppError("WRITER_ADMISSION_REFUSED", message, { details: { check } });

/** Validated, normalised scopes; owned and blocked scopes of one writer must not overlap. */
export const literalScopes = (owned: readonly string[], blocked: readonly string[]): { owned: string[]; blocked: string[] } => {
  for (const [flag, list] of [
    ["--owned-scope", owned],
    ["--blocked-scope", blocked],
  ] as const) {
    for (const scope of list) {
      const problem = scopeProblem(scope);
      if (problem) throw new AppError("INVALID_INPUT", `${flag}: ${problem} (got ${JSON.stringify(scope)})`);
    }
  }
  const result = { owned: [...new Set(owned.map(normalizeScope))], blocked: [...new Set(blocked.map(normalizeScope))] };
  for (const scope of result.owned) {
    const clash = result.blocked.find((other) => scopesOverlap(scope, other));
    if (clash) throw new AppError("INVALID_INPUT", `--owned-scope ${scope} overlaps --blocked-scope ${clash}`);
  }
  return result;
};

const realpathOrNull = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/** Every Git fact the admission rests on; returns the repository key shared by all its clones and worktrees. */
export const checkWorktreeFacts = async (deps: HerdrDeps, expect: GitExpectations): Promise<{ repoKey: string }> => {
  const { worktree } = expect;
  if (!isAbsolute(worktree) || realpathOrNull(worktree) !== worktree) {
    throw refuse("worktree_path", `${worktree} is not an absolute, existing path without symlinks`);
  }
  const git = deps.git(worktree);
  try {
    const layout = await git.layout();
    if (layout.topLevel !== worktree)
      throw refuse("worktree_root", `${worktree} is not the root of its worktree (${layout.topLevel})`);
    if (layout.gitDir === layout.commonDir) {
      throw refuse("main_checkout", `${worktree} is the repository's main checkout; writers work only in linked worktrees`);
    }
    const branch = await git.branch();
    if (branch === null) throw refuse("detached_head", `${worktree} has a detached HEAD`);
    if (branch !== expect.branch) throw refuse("branch_mismatch", `${worktree} is on ${branch}, not ${expect.branch}`);
    if (expect.protectedBranches.includes(branch)) throw refuse("protected_branch", `${branch} is a protected branch`);
    const head = await git.commit("HEAD");
    if (head !== expect.expectedHead) throw refuse("head_mismatch", `HEAD is ${head ?? "unborn"}, not ${expect.expectedHead}`);
    const base = await git.commit(expect.baseCommit);
    if (base !== expect.baseCommit)
      throw refuse("base_unknown", `base commit ${expect.baseCommit} is not a commit of this repository`);
    if (!(await git.isAncestor(base, head))) throw refuse("base_not_ancestor", `base ${base} is not an ancestor of HEAD`);
    const status = await git.statusSha256();
    if (status !== expect.expectedStatusSha256) {
      throw refuse("status_mismatch", `the worktree status digest is ${status}, not ${expect.expectedStatusSha256}`);
    }
    const roots = await git.rootCommits(base);
    return { repoKey: createHash("sha256").update(roots.join("\n")).digest("hex") };
  } catch (error) {
    if (error instanceof GitError) throw refuse(`git_${error.kind}`, error.message);
    throw error;
  }
};

/** No Herdr agent may already work in the worktree or beneath it. */
export const checkNoAgentInWorktree = async (deps: HerdrDeps, worktree: string): Promise<void> => {
  const agents = await viaHerdr(deps.herdr.listAgents());
  const inside = agents.find((agent) => withinDirectory(agent.cwd, worktree));
  if (inside) throw refuse("agent_in_worktree", `agent ${inside.name ?? inside.paneId} already works in ${worktree}`);
};
