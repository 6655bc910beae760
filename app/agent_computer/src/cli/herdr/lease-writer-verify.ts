import * as z from "zod/mini";
import { findProgram, readHostRoot, runBwrap } from "../../adapters/bwrap.ts";
import { scopeProblem } from "../../domain/herdr/scopes.ts";
import { type VerifyHost, verifyWriter } from "../../domain/herdr/verify.ts";
import type { VerificationReceipt } from "../../domain/herdr/verify-receipts.ts";
import { DEFAULT_RECIPE_PATH } from "../../domain/herdr/verify-recipe.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { AUTHORITY_ERRORS, BINDING_ENV, boundedInt, commitSchema, leaseIdSchema } from "./shared.ts";

export const writerVerifyOptionsSchema = z.object({
  leaseId: leaseIdSchema.check(z.describe("the writer lease whose worktree is verified")),
  expectedHead: commitSchema.check(z.describe("HEAD of the worktree as you just observed it: the commit that is verified")),
  recipe: z._default(z.string(), DEFAULT_RECIPE_PATH).check(
    z.superRefine((path, ctx) => {
      const problem = scopeProblem(path);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    z.describe("repo-relative path of the recipe, read from the lease's base commit"),
  ),
  tailBytes: boundedInt(256, 65_536, 4096).check(z.describe("bytes of output kept per phase")),
});
export type WriterVerifyOptions = z.output<typeof writerVerifyOptionsSchema>;

const verifyHost = (env: Record<string, string | undefined>): VerifyHost => {
  const bwrap = findProgram("bwrap", env.AGENT_COMPUTER_BWRAP, env.PATH);
  return {
    platform: process.platform,
    bwrap,
    uv: findProgram("uv", env.AGENT_COMPUTER_UV, env.PATH),
    hostRoot: readHostRoot,
    runSandbox: (args, options) => runBwrap(bwrap.path as string, args, { ...options, now: () => Date.now() }),
    tmpRoot: env.TMPDIR?.startsWith("/") ? env.TMPDIR : "/tmp",
  };
};

const runWriterVerify = async (options: WriterVerifyOptions, { ctx, ...deps }: DepsOf<"herdr">) =>
  verifyWriter(deps, verifyHost(ctx.env), options);

const renderReceipt = (r: VerificationReceipt) => {
  const lines = [`verification ${r.id}: ${r.status} · commit ${r.commit} · recipe ${neutralizeLine(r.recipe_path)}`];
  for (const phase of r.phases) {
    const end = phase.timed_out ? "timed out" : `exit ${phase.exit_code ?? phase.signal}`;
    lines.push(
      `  ${phase.kind} ${neutralizeLine(phase.name)}: ${end} in ${phase.duration_ms} ms${phase.network ? " (network)" : ""}`,
    );
  }
  return lines.join("\n");
};

export default defineCommand({
  name: "herdr-lease-cli writer verify",
  summary: "run the repository's verification recipe offline in Bubblewrap against a writer's commit; store a receipt",
  description:
    "Needs controller authority and a held writer lease of this controller (an ended one: CONFLICT with its state). HEAD of the leased worktree must be " +
    "--expected-head and descend from the lease's accepted base commit; that commit's tree, byte for byte from Git's " +
    "objects (uncommitted changes are not part of it; its .gitattributes do not apply: no export-ignore, export-subst, " +
    "eol or filter), is what is verified. The recipe is read from the BASE commit's Git object, never the " +
    'worktree: JSON {"steps":[{"name","argv":[…],"timeout_s"?:1-3600 (600)}],"bootstrap"?:{"web"?:bool,"python"?:' +
    '["requirements.lock"],"timeout_s"?}}. Each argv runs without a shell in a Linux Bubblewrap sandbox: every namespace ' +
    "unshared (its own empty network), a cleared environment (HOME=/scratch/home, PATH=/opt/agent-computer/bin:/usr/local/bin:/usr/bin:/bin, uv in the first), " +
    "/usr and /etc read-only, a read-only copy of the commit at /repo (the working directory), a private scratch dir at " +
    "/scratch shared by the steps, a fresh /tmp; every other write fails. Steps run in order; the first failure or " +
    "timeout (its process group is killed) ends the run. Optional networked bootstrap, before the steps, over a " +
    "read-only copy of the base commit: web runs `npm ci --ignore-scripts` from the committed package-lock.json (no " +
    "lifecycle scripts) into /repo/node_modules; python runs `uv pip install --require-hashes --no-build --target " +
    "/opt/agent-computer/python` (on PYTHONPATH for the steps) from each named lock, which must be a regular file (not " +
    "a symlink) with the base commit's bytes at the base, at HEAD and in the worktree, every requirement pinned with == " +
    "and --hash=sha256. Online, uv starts the host's Python only to read its version and platform (uv's interpreter " +
    "query, run in an empty /tmp so no repository file is on its path); it builds, imports and compiles no package. What the bootstraps make (node_modules, the npm and uv caches " +
    "under /opt/agent-computer) is read-only for every step, so a uv command that writes its cache fails there. A resolver symlinked out of /etc is " +
    "mounted as only its resolved file, read-only, in networked phases. The receipt (each phase's exit code, duration, " +
    "output tail) is stored on this host; cite it at release (writer release --verification-id). This checks a " +
    "commit's behaviour; it is NOT a security boundary against an agent running as the same Unix user, which can edit " +
    "the state dir, the repository or the recipe's inputs. Needs Linux and bwrap (uv for python bootstrap): else UNSUPPORTED.",
  schema: writerVerifyOptionsSchema,
  writes: "a verification receipt in the state dir (0600); temporary private copies, removed afterwards. Git is only read.",
  output:
    '{"id":"vrf_…","lease_id","worktree","branch","base_commit","commit","recipe_path","recipe_sha256","python_locks",' +
    '"web_bootstrap","status":"passed","started_at","finished_at","phases":[{"kind":"bootstrap-web|bootstrap-python|step",' +
    '"name","argv","network","exit_code","signal","timed_out","duration_ms","output_tail","output_bytes"}],"skipped"}; ' +
    "a failed run exits 4 with VERIFICATION_FAILED and the same receipt under error.receipt",
  errors: [...AUTHORITY_ERRORS, "CONFLICT", "VERIFICATION_REFUSED", "VERIFICATION_FAILED", "UNSUPPORTED", "INTERNAL"],
  env: [...BINDING_ENV, "AGENT_COMPUTER_BWRAP", "AGENT_COMPUTER_UV", "TMPDIR"],
  examples: [
    "herdr-lease-cli writer verify --lease-id lease_7a1e9a1b2c3d4e5f60718293a4b5c6d7 " +
      "--expected-head $(git -C /srv/wt/t7 rev-parse HEAD) --json",
  ],
  needs: { deps: "herdr" },
  run: runWriterVerify,
  render: renderReceipt,
});
