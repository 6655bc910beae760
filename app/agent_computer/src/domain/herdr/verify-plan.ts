// The phases of one verification as data: networked bootstrap phases over a read-only copy of the accepted base
// commit, then the recipe's steps, offline, over a read-only copy of the commit under test. Pure, so the argv and
// mounts of every phase (including the networked ones CI cannot run for real) are tested in-process.
import { join } from "node:path";
import { SANDBOX, type SandboxBind, type SandboxSpec } from "../../adapters/bwrap.ts";
import type { Recipe } from "./verify-recipe.ts";

export type PhaseKind = "bootstrap-web" | "bootstrap-python" | "step";

export interface Phase {
  kind: PhaseKind;
  name: string;
  timeoutMs: number;
  spec: SandboxSpec;
}

export interface PlanDirs {
  /** Host dirs: the base copy (bootstrap only), the copy under test, and the private scratch dir. */
  baseCopy: string;
  headCopy: string;
  scratch: string;
  /** The uv binary on the host, when the recipe bootstraps Python. */
  uv: string | null;
}

/** Where bootstrap output lives in scratch, relative to it. */
export const SCRATCH = {
  home: "home",
  nodeModules: "node_modules",
  npmCache: "npm-cache",
  uvCache: "uv-cache",
  pythonTarget: "python-bootstrap",
} as const;

const inScratch = (name: string) => `${SANDBOX.scratch}/${name}`;

/** The whole environment of every phase (bwrap starts from --clearenv); nothing of the caller's leaks in. */
export const sandboxEnv = (network: boolean): Record<string, string> => ({
  PATH: `${SANDBOX.tools}:/usr/local/bin:/usr/bin:/bin`,
  HOME: SANDBOX.home,
  TMPDIR: "/tmp",
  LANG: "C.UTF-8",
  CI: "1",
  NO_COLOR: "1",
  npm_config_cache: inScratch(SCRATCH.npmCache),
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
  UV_CACHE_DIR: inScratch(SCRATCH.uvCache),
  UV_NO_CONFIG: "1",
  UV_NO_BUILD: "1",
  UV_PYTHON_DOWNLOADS: "never",
  ...(network ? {} : { UV_OFFLINE: "1", npm_config_offline: "true" }),
});

const toolBinds = (dirs: PlanDirs): SandboxBind[] =>
  dirs.uv ? [{ source: dirs.uv, target: `${SANDBOX.tools}/uv`, writable: false }] : [];

export const planPhases = (recipe: Recipe, dirs: PlanDirs): Phase[] => {
  const phases: Phase[] = [];
  const modules = join(dirs.scratch, SCRATCH.nodeModules);
  const bootstrapMs = recipe.bootstrap.timeout_s * 1000;
  const base = (argv: string[], binds: SandboxBind[]): SandboxSpec => ({
    network: true,
    copy: dirs.baseCopy,
    scratch: dirs.scratch,
    binds,
    env: sandboxEnv(true),
    cwd: SANDBOX.repo,
    argv,
  });
  if (recipe.bootstrap.web) {
    phases.push({
      kind: "bootstrap-web",
      name: "npm-ci",
      timeoutMs: bootstrapMs,
      spec: base(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
        [{ source: modules, target: `${SANDBOX.repo}/node_modules`, writable: true }],
      ),
    });
  }
  for (const lock of recipe.bootstrap.python) {
    phases.push({
      kind: "bootstrap-python",
      name: `uv:${lock}`,
      timeoutMs: bootstrapMs,
      spec: base(
        [
          "uv",
          "pip",
          "install",
          "--no-config",
          "--require-hashes",
          "--no-build",
          "--no-python-downloads",
          "--cache-dir",
          inScratch(SCRATCH.uvCache),
          "--target",
          inScratch(SCRATCH.pythonTarget),
          "-r",
          `${SANDBOX.repo}/${lock}`,
        ],
        toolBinds(dirs),
      ),
    });
  }
  const gateBinds: SandboxBind[] = [
    ...(recipe.bootstrap.web ? [{ source: modules, target: `${SANDBOX.repo}/node_modules`, writable: false }] : []),
    ...toolBinds(dirs),
  ];
  for (const step of recipe.steps) {
    phases.push({
      kind: "step",
      name: step.name,
      timeoutMs: step.timeout_s * 1000,
      spec: {
        network: false,
        copy: dirs.headCopy,
        scratch: dirs.scratch,
        binds: gateBinds,
        env: sandboxEnv(false),
        cwd: SANDBOX.repo,
        argv: step.argv,
      },
    });
  }
  return phases;
};
