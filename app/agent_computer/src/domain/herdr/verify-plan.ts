// The phases of one verification as data: networked bootstrap phases over a read-only copy of the accepted base
// commit, then the recipe's steps, offline, over a read-only copy of the commit under test. What the bootstraps make
// (node_modules, the npm and uv caches, the python packages) lives in a tools dir outside scratch: writable for the
// bootstrap that fills it, read-only for every step, so no step can replace the tools a later step runs. Pure, so
// the argv and mounts of every phase (including the networked ones CI cannot run for real) are tested in-process.
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
  /** The host dir holding the TOOLS subdirs, private like scratch but never writable by a step. */
  tools: string;
  /** The uv binary on the host, when the recipe bootstraps Python. */
  uv: string | null;
}

/** Where step-owned files live in scratch, relative to it. */
export const SCRATCH = {
  home: "home",
  npmLogs: "npm-logs",
  uvCache: "uv-cache",
} as const;

/** What the bootstraps fill, relative to the tools dir on the host, and where each is mounted in the sandbox. */
export const TOOLS = {
  nodeModules: { dir: "node_modules", at: `${SANDBOX.repo}/node_modules` },
  npmCache: { dir: "npm-cache", at: "/opt/agent-computer/npm-cache" },
  uvCache: { dir: "uv-cache", at: "/opt/agent-computer/uv-cache" },
  python: { dir: "python", at: "/opt/agent-computer/python" },
} as const;
type Tool = keyof typeof TOOLS;

/** The tools dirs a recipe's bootstraps fill (each is made empty before the first phase). */
export const toolsOf = (recipe: Recipe): Tool[] => [
  ...(recipe.bootstrap.web ? (["nodeModules", "npmCache"] as const) : []),
  ...(recipe.bootstrap.python.length > 0 ? (["uvCache", "python"] as const) : []),
];

export const PYTHON_BOOTSTRAP_CWD = "/tmp";

const inScratch = (name: string) => `${SANDBOX.scratch}/${name}`;

/**
 * The whole environment of every phase (bwrap starts from --clearenv); nothing of the caller's leaks in. Once Python
 * was bootstrapped its packages are on PYTHONPATH and uv's cache is the read-only bootstrapped one; without a python
 * bootstrap uv gets a cache of its own in scratch.
 */
export const sandboxEnv = (network: boolean, recipe: Recipe): Record<string, string> => {
  const python = recipe.bootstrap.python.length > 0;
  return {
    PATH: `${SANDBOX.tools}:/usr/local/bin:/usr/bin:/bin`,
    HOME: SANDBOX.home,
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    CI: "1",
    NO_COLOR: "1",
    npm_config_cache: recipe.bootstrap.web ? TOOLS.npmCache.at : inScratch("npm-cache"),
    npm_config_logs_dir: inScratch(SCRATCH.npmLogs),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    UV_CACHE_DIR: python ? TOOLS.uvCache.at : inScratch(SCRATCH.uvCache),
    UV_NO_CONFIG: "1",
    UV_NO_BUILD: "1",
    UV_PYTHON_DOWNLOADS: "never",
    ...(python && !network ? { PYTHONPATH: TOOLS.python.at } : {}),
    ...(network ? {} : { UV_OFFLINE: "1", npm_config_offline: "true" }),
  };
};

const toolBind = (dirs: PlanDirs, tool: Tool, writable: boolean): SandboxBind => ({
  source: join(dirs.tools, TOOLS[tool].dir),
  target: TOOLS[tool].at,
  writable,
});

const uvBinary = (dirs: PlanDirs): SandboxBind[] =>
  dirs.uv ? [{ source: dirs.uv, target: `${SANDBOX.tools}/uv`, writable: false }] : [];

export const planPhases = (recipe: Recipe, dirs: PlanDirs): Phase[] => {
  const phases: Phase[] = [];
  const bootstrapMs = recipe.bootstrap.timeout_s * 1000;
  const base = (argv: string[], binds: SandboxBind[], cwd: string): SandboxSpec => ({
    network: true,
    copy: dirs.baseCopy,
    scratch: dirs.scratch,
    binds,
    env: sandboxEnv(true, recipe),
    cwd,
    argv,
  });
  if (recipe.bootstrap.web) {
    phases.push({
      kind: "bootstrap-web",
      name: "npm-ci",
      timeoutMs: bootstrapMs,
      spec: base(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
        [toolBind(dirs, "nodeModules", true), toolBind(dirs, "npmCache", true)],
        SANDBOX.repo,
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
          TOOLS.uvCache.at,
          "--target",
          TOOLS.python.at,
          "-r",
          `${SANDBOX.repo}/${lock}`,
        ],
        [toolBind(dirs, "uvCache", true), toolBind(dirs, "python", true), ...uvBinary(dirs)],
        // uv starts Python online to read its version and platform (`python -c <script>`, which puts the working
        // directory first on sys.path): the phase's fresh, empty /tmp, so no file of the repository can be imported.
        PYTHON_BOOTSTRAP_CWD,
      ),
    });
  }
  const gateBinds: SandboxBind[] = [...toolsOf(recipe).map((tool) => toolBind(dirs, tool, false)), ...uvBinary(dirs)];
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
        env: sandboxEnv(false, recipe),
        cwd: SANDBOX.repo,
        argv: step.argv,
      },
    });
  }
  return phases;
};
