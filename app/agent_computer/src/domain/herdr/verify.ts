// Host verification of a writer's result. The recipe and the python locks come from the accepted base commit's Git
// objects; networked bootstrap phases (npm ci --ignore-scripts, uv pip with hashes) see only a read-only copy of the
// base and write only the tools dir; the recipe's steps then run offline in Bubblewrap over a read-only copy of the
// commit under test (its tree byte for byte, see adapters/git-tree.ts), with the tools read-only and one private
// scratch dir. The outcome is a stored receipt. This checks a commit's behaviour; it is not a boundary
// against a process of the same Unix user, which can edit the state dir or the repository itself.
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bwrapArgs, type HostRoot, SANDBOX, type StepOutcome } from "../../adapters/bwrap.ts";
import { GitError } from "../../adapters/git.ts";
import { AppError } from "../../errors.ts";
import { neutralizeLine } from "../../terminal-text.ts";
import { iso } from "../deps.ts";
import { loadAuthority } from "./controller-authority.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { isHeld, ownedLease } from "./leases.ts";
import { isRegularFileMode, lockProblems } from "./verify-locks.ts";
import { type Phase, planPhases, SCRATCH, TOOLS, toolsOf } from "./verify-plan.ts";
import { type PhaseRecord, saveVerification, type VerificationReceipt } from "./verify-receipts.ts";
import { parseRecipe, type Recipe } from "./verify-recipe.ts";

/** The host side of verification; the CLI builds it from the environment, tests may replace parts. */
export interface VerifyHost {
  platform: string;
  bwrap: { path: string | null; looked: string };
  uv: { path: string | null; looked: string };
  hostRoot(): HostRoot;
  runSandbox(args: readonly string[], options: { timeoutMs: number; tailBytes: number }): Promise<StepOutcome>;
  /** A directory for the private working dirs of a verification (removed afterwards). */
  tmpRoot: string;
}

export interface VerifyInput {
  leaseId: string;
  expectedHead: string;
  recipe: string;
  tailBytes: number;
}

const refuse = (check: string, message: string) => new AppError("VERIFICATION_REFUSED", message, { details: { check } });
const unsupported = (reason: string) => new AppError("UNSUPPORTED", reason, { details: { reason } });

/** A named lock: a regular file at base and at the commit under test with the same blob, its text fully hashed. */
const checkLock = async (deps: HerdrDeps, worktree: string, base: string, head: string, lock: string) => {
  const git = deps.git(worktree);
  const atBase = await git.treeEntry(base, lock);
  if (!atBase || !isRegularFileMode(atBase.mode)) {
    throw refuse("lock_not_regular", `${lock} is not a regular file at the base commit (a symlink or missing)`);
  }
  const atHead = await git.treeEntry(head, lock);
  if (!atHead || !isRegularFileMode(atHead.mode) || atHead.oid !== atBase.oid) {
    throw refuse("lock_changed", `${lock} at the commit under test is not the base commit's file, byte for byte`);
  }
  const bytes = await git.blob(atBase.oid);
  let onDisk: Buffer | undefined;
  try {
    if (lstatSync(join(worktree, lock)).isFile()) onDisk = readFileSync(join(worktree, lock));
  } catch {
    onDisk = undefined;
  }
  if (!onDisk?.equals(bytes)) {
    throw refuse("lock_changed", `${lock} in the worktree is not a regular file with the base commit's bytes`);
  }
  const problem = lockProblems(bytes.toString("utf8"))[0];
  if (problem) throw refuse("lock_hashes", `${lock} line ${problem.line} ${problem.problem}`);
};

const readRecipe = async (deps: HerdrDeps, worktree: string, base: string, path: string) => {
  const git = deps.git(worktree);
  const entry = await git.treeEntry(base, path);
  if (!entry) throw refuse("recipe_missing", `the base commit has no recipe at ${path}`);
  if (!isRegularFileMode(entry.mode)) throw refuse("recipe", `${path} at the base commit is not a regular file`);
  const bytes = await git.blob(entry.oid);
  return { recipe: parseRecipe(bytes, path), sha256: createHash("sha256").update(bytes).digest("hex") };
};

/** The commit's tree exactly as committed: its .gitattributes (export-ignore, export-subst, eol, filters) do not apply. */
const exportCommit = async (deps: HerdrDeps, worktree: string, commit: string, root: string, name: string) => {
  const dir = join(root, name);
  mkdirSync(dir, { mode: 0o700 });
  try {
    await deps.git(worktree).writeTree(commit, dir);
  } catch (error) {
    if (error instanceof GitError) throw refuse("git_tree", error.message);
    throw error;
  }
  return dir;
};

/** bind mounts need their mount point in the read-only copy. */
const mountPoint = (copy: string, name: string) => {
  const path = join(copy, name);
  try {
    if (!lstatSync(path).isDirectory()) throw refuse("node_modules", `${name} in the commit is not a directory`);
  } catch (error) {
    if (error instanceof AppError) throw error;
    mkdirSync(path);
  }
};

const runPhases = async (host: VerifyHost, phases: Phase[], tailBytes: number) => {
  const records: PhaseRecord[] = [];
  const hostRoot = host.hostRoot();
  for (const phase of phases) {
    const outcome = await host.runSandbox(bwrapArgs(hostRoot, phase.spec), { timeoutMs: phase.timeoutMs, tailBytes });
    records.push({ kind: phase.kind, name: phase.name, argv: [...phase.spec.argv], network: phase.spec.network, ...outcome });
    if (outcome.exit_code !== 0 || outcome.timed_out) break;
  }
  return { records, skipped: phases.slice(records.length).map((phase) => phase.name) };
};

/** Checks this host can sandbox at all; bwrap's own complaint is the reason when it cannot. */
const probeSandbox = async (host: VerifyHost, scratch: string, copy: string) => {
  const spec = { network: false, copy, scratch, binds: [], env: { PATH: "/usr/bin:/bin" }, cwd: SANDBOX.repo, argv: ["true"] };
  const outcome = await host.runSandbox(bwrapArgs(host.hostRoot(), spec), { timeoutMs: 30_000, tailBytes: 512 });
  if (outcome.exit_code !== 0) {
    throw unsupported(`bwrap cannot create a sandbox here: ${outcome.output_tail.trim().split("\n").pop() ?? "no output"}`);
  }
};

const preflight = (host: VerifyHost, recipe?: Recipe) => {
  if (host.platform !== "linux") throw unsupported(`host verification needs Linux and Bubblewrap; this is ${host.platform}`);
  if (!host.bwrap.path) {
    throw unsupported(`bwrap not found (${host.bwrap.looked}); install Bubblewrap (Debian: apt-get install bubblewrap)`);
  }
  if (recipe && recipe.bootstrap.python.length > 0 && !host.uv.path) {
    throw unsupported(`the recipe bootstraps Python from lock files but uv was not found (${host.uv.looked})`);
  }
};

/** The last non-empty line of a phase's output, neutralised and cut short, for the one-line failure message. */
const lastLine = (tail: string): string =>
  neutralizeLine(
    tail
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .pop() ?? "",
  ).slice(0, 200);

/** The private dirs go whatever happened; a leftover (a file the sandbox made unremovable) must not hide the result. */
const removeQuietly = (root: string) => {
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    // left in the temp dir, private (0700)
  }
};

export const verifyWriter = async (deps: HerdrDeps, host: VerifyHost, input: VerifyInput): Promise<VerificationReceipt> => {
  const authority = await loadAuthority(deps);
  const lease = ownedLease(deps.dirs, input.leaseId, authority.controllerId, "writer");
  // An ended lease no longer holds its worktree: a receipt for it could not be cited by any release.
  if (!isHeld(lease.state)) {
    throw new AppError("CONFLICT", `writer lease ${lease.lease_id} is ${lease.state}; only a held writer lease is verified`, {
      hint: "verify before release; a new writer lease (herdr-lease-cli writer start) is needed to verify this worktree again",
      details: { state: lease.state },
    });
  }
  const writer = lease.writer;
  if (!writer) throw new AppError("INTERNAL", "writer facts missing");
  preflight(host);
  const git = deps.git(writer.worktree);
  const base = writer.base_commit;
  let recipe: Recipe;
  let recipeSha256: string;
  try {
    const head = await git.commit("HEAD");
    if (head !== input.expectedHead) throw refuse("head_mismatch", `HEAD is ${head ?? "unborn"}, not ${input.expectedHead}`);
    if (!(await git.isAncestor(base, head))) throw refuse("base_not_ancestor", `base ${base} is not an ancestor of HEAD`);
    ({ recipe, sha256: recipeSha256 } = await readRecipe(deps, writer.worktree, base, input.recipe));
    preflight(host, recipe);
    for (const lock of recipe.bootstrap.python) await checkLock(deps, writer.worktree, base, head, lock);
    if (recipe.bootstrap.web) {
      const lockfile = await git.treeEntry(base, "package-lock.json");
      if (!lockfile || !isRegularFileMode(lockfile.mode)) {
        throw refuse("web_lockfile", "web bootstrap needs a committed package-lock.json (a regular file) at the base commit");
      }
    }
  } catch (error) {
    if (error instanceof GitError) throw refuse(`git_${error.kind}`, error.message);
    throw error;
  }

  const root = mkdtempSync(join(host.tmpRoot, "agent-computer-verify-"));
  chmodSync(root, 0o700);
  const startedAt = deps.now();
  try {
    const scratch = join(root, "scratch");
    const tools = join(root, "tools");
    const toolDirs = toolsOf(recipe).map((tool) => join(tools, TOOLS[tool].dir));
    for (const dir of [scratch, join(scratch, SCRATCH.home), tools, ...toolDirs]) mkdirSync(dir, { mode: 0o700 });
    const headCopy = await exportCommit(deps, writer.worktree, input.expectedHead, root, "head");
    const bootstraps = recipe.bootstrap.web || recipe.bootstrap.python.length > 0;
    const baseCopy = bootstraps ? await exportCommit(deps, writer.worktree, base, root, "base") : headCopy;
    if (recipe.bootstrap.web) {
      mountPoint(baseCopy, "node_modules");
      mountPoint(headCopy, "node_modules");
    }
    await probeSandbox(host, scratch, headCopy);
    const phases = planPhases(recipe, { baseCopy, headCopy, scratch, tools, uv: host.uv.path });
    const { records, skipped } = await runPhases(host, phases, input.tailBytes);
    const passed = skipped.length === 0 && records.every((r) => r.exit_code === 0 && !r.timed_out);
    const receipt: VerificationReceipt = {
      version: 1,
      id: deps.newId("vrf"),
      lease_id: lease.lease_id,
      worktree: writer.worktree,
      branch: writer.branch,
      base_commit: base,
      commit: input.expectedHead,
      recipe_path: input.recipe,
      recipe_sha256: recipeSha256,
      python_locks: [...recipe.bootstrap.python],
      web_bootstrap: recipe.bootstrap.web,
      status: passed ? "passed" : "failed",
      started_at: iso(startedAt),
      finished_at: iso(deps.now()),
      phases: records,
      skipped,
    };
    saveVerification(deps.dirs, receipt);
    if (!passed) {
      const last = records[records.length - 1];
      const how = last?.timed_out ? "timed out" : `exited ${last?.exit_code ?? `on ${last?.signal}`}`;
      const said = lastLine(last?.output_tail ?? "");
      const message = `${last?.kind} ${last?.name} ${how}${said ? ` (last output: ${said})` : ""}; receipt ${receipt.id}`;
      throw new AppError("VERIFICATION_FAILED", message, {
        details: { receipt },
      });
    }
    return receipt;
  } finally {
    removeQuietly(root);
  }
};
