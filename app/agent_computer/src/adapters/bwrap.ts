// Bubblewrap (bwrap) for host verification: a pure builder of the fixed argument array, the host facts it needs,
// and a runner that keeps only a bounded tail of the output and kills the whole process group at the deadline.
// No shell anywhere: bwrap gets an argv array and execs the step's argv array inside the sandbox.
import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { execa } from "execa";

/** Where things sit inside the sandbox. */
export const SANDBOX = {
  repo: "/repo",
  scratch: "/scratch",
  home: "/scratch/home",
  tools: "/opt/agent-computer/bin",
} as const;

export type ResolverFact = { kind: "none" } | { kind: "plain" } | { kind: "outside-etc"; target: string };

/** What the builder needs to know about this host's root (merged /usr or not, where the DNS resolver file is). */
export interface HostRoot {
  /** /bin, /lib, /lib64, /sbin: a symlink's target (e.g. "usr/bin"), "dir" for a real directory, absent when missing. */
  topLevel: Record<string, string>;
  resolver: ResolverFact;
}

export interface SandboxBind {
  source: string;
  target: string;
  writable: boolean;
}

export interface SandboxSpec {
  /** Network phases (bootstrap downloads) share the host's network; every other phase has its own empty one. */
  network: boolean;
  /** The derived copy of a commit, mounted read-only at /repo. */
  copy: string;
  /** The private scratch directory, the only writable host path (/scratch). */
  scratch: string;
  /** Further mounts inside /repo or /opt (node_modules, a tool binary). */
  binds: readonly SandboxBind[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  argv: readonly string[];
}

const TOP_LEVEL = ["/bin", "/lib", "/lib64", "/sbin"] as const;

/** The host facts, read once per verification. */
export const readHostRoot = (): HostRoot => {
  const topLevel: Record<string, string> = {};
  for (const path of TOP_LEVEL) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) topLevel[path] = readlinkSync(path);
      else if (stat.isDirectory()) topLevel[path] = "dir";
    } catch {
      // missing on this host: nothing to mount
    }
  }
  return { topLevel, resolver: resolverFact("/etc/resolv.conf") };
};

/** The resolver file: plain (a file, or a symlink resolving inside /etc), a symlink resolving outside /etc, or none. */
export const resolverFact = (path: string): ResolverFact => {
  try {
    if (!lstatSync(path).isSymbolicLink()) return { kind: "plain" };
    const target = realpathSync(path);
    return target.startsWith("/etc/") ? { kind: "plain" } : { kind: "outside-etc", target };
  } catch {
    return { kind: "none" };
  }
};

/**
 * The fixed bwrap argv: every namespace unshared (network too, unless a bootstrap phase needs downloads), a cleared
 * environment, /usr and /etc read-only, fresh /proc, /dev and /tmp, the copy read-only at /repo, scratch writable, and
 * the root remounted read-only, so a write anywhere else fails. A networked phase whose resolver is a symlink out of
 * /etc gets only that resolved file, read-only.
 */
export const bwrapArgs = (host: HostRoot, spec: SandboxSpec): string[] => {
  const args = ["--die-with-parent", "--new-session", "--unshare-all"];
  if (spec.network) args.push("--share-net");
  args.push("--clearenv", "--ro-bind", "/usr", "/usr");
  for (const path of TOP_LEVEL) {
    const fact = host.topLevel[path];
    if (fact === "dir") args.push("--ro-bind", path, path);
    else if (fact !== undefined) args.push("--symlink", fact, path);
  }
  args.push("--ro-bind", "/etc", "/etc");
  if (spec.network && host.resolver.kind === "outside-etc") {
    args.push("--ro-bind", host.resolver.target, host.resolver.target);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  args.push("--ro-bind", spec.copy, SANDBOX.repo, "--bind", spec.scratch, SANDBOX.scratch);
  for (const bind of spec.binds) args.push(bind.writable ? "--bind" : "--ro-bind", bind.source, bind.target);
  args.push("--remount-ro", "/");
  for (const [key, value] of Object.entries(spec.env).sort(([a], [b]) => a.localeCompare(b))) {
    args.push("--setenv", key, value);
  }
  args.push("--chdir", spec.cwd, "--", ...spec.argv);
  return args;
};

export interface StepOutcome {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  /** The last bytes of stdout and stderr together, as UTF-8 (a cut character is replaced). */
  output_tail: string;
  output_bytes: number;
}

/** Keeps the last `limit` bytes of everything written to it. */
const tailKeeper = (limit: number) => {
  let chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    push(chunk: Buffer) {
      total += chunk.byteLength;
      chunks.push(chunk);
      kept += chunk.byteLength;
      while (kept - (chunks[0]?.byteLength ?? 0) >= limit && chunks.length > 1) kept -= (chunks.shift() as Buffer).byteLength;
    },
    text: () => {
      const all = Buffer.concat(chunks);
      chunks = [all];
      return all.subarray(Math.max(0, all.byteLength - limit)).toString("utf8");
    },
    total: () => total,
  };
};

/**
 * Runs bwrap with those arguments in its own process group; at the deadline the whole group is killed (SIGKILL), and
 * --die-with-parent takes the sandboxed processes with it. Never throws for the step's own failure.
 */
export const runBwrap = async (
  bwrap: string,
  args: readonly string[],
  options: { timeoutMs: number; tailBytes: number; now: () => number },
): Promise<StepOutcome> => {
  const started = options.now();
  const tail = tailKeeper(options.tailBytes);
  const child = execa(bwrap, args, {
    reject: false,
    extendEnv: false,
    env: { PATH: "/usr/bin:/bin" },
    stdin: "ignore",
    buffer: false,
    detached: true,
    cleanup: true,
  });
  child.stdout?.on("data", (chunk: Buffer) => tail.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => tail.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, options.timeoutMs);
  const result = await child;
  clearTimeout(timer);
  return {
    exit_code: typeof result.exitCode === "number" ? result.exitCode : null,
    signal: result.signal ?? null,
    timed_out: timedOut,
    duration_ms: options.now() - started,
    output_tail: tail.text(),
    output_bytes: tail.total(),
  };
};

/** An executable named by an override variable (an absolute path), else the first on PATH; null when there is none. */
export const findProgram = (
  name: string,
  override: string | undefined,
  path: string | undefined,
): { path: string | null; looked: string } => {
  if (override !== undefined && !override.startsWith("/")) return { path: null, looked: `${override}, not an absolute path` };
  const candidates = override !== undefined ? [override] : (path ?? "").split(":").filter((dir) => dir.startsWith("/"));
  for (const candidate of override !== undefined ? candidates : candidates.map((dir) => `${dir}/${name}`)) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return { path: realpathSync(candidate), looked: candidate };
    } catch {
      // not here
    }
  }
  return { path: null, looked: override !== undefined ? override : "PATH" };
};
