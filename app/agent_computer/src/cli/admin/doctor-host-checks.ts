// Doctor's checks of this host: the console token, free space for the state directory, the programs some features
// run (herdr, tmux, bwrap, uv) and the binaries on PATH.
import { existsSync, readdirSync, statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { findProgram } from "../../adapters/bwrap.ts";
import { programVersion } from "../../adapters/program-version.ts";
import { consoleTokenFile } from "../../local/console-token.ts";
import { installPaths } from "../../worker/install-paths.ts";
import { neutralizeLine } from "../kernel/output.ts";
import type { CheckOutcome, DoctorCheck } from "./doctor-check.ts";

const MIB = 1024 * 1024;
/** Below this the store's next writes may fail (DISK_FULL); below the warning it is a matter of time. */
export const DISK_ERROR_BYTES = 100 * MIB;
export const DISK_WARN_BYTES = 1024 * MIB;

export const consoleTokenCheck: DoctorCheck = {
  name: "console-token",
  run: async ({ stateDir }) => {
    const file = consoleTokenFile(stateDir);
    if (!existsSync(file)) {
      return {
        status: "warn",
        detail: `no console token yet (${neutralizeLine(file)})`,
        fix: "the worker makes it at its first start; agent-computer-worker --console-url prints the sign-in link",
      };
    }
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      return {
        status: "error",
        detail: `${neutralizeLine(file)} is readable by others (mode ${mode.toString(8)}): the worker will not use it`,
        fix: `chmod 600 ${file} (or remove it: the worker makes a new one, and browsers sign in again)`,
      };
    }
    return { status: "ok", detail: `${neutralizeLine(file)}, mode 600` };
  },
};

/** The state directory, or the nearest directory above it that exists (where it would be made). */
const existingAncestor = (dir: string): string => {
  let at = dir;
  while (!existsSync(at) && at !== dirname(at)) at = dirname(at);
  return at;
};

export const diskCheck: DoctorCheck = {
  name: "disk",
  run: async ({ stateDir }) => {
    const at = existingAncestor(stateDir);
    const fs = statfsSync(at);
    const free = fs.bavail * fs.bsize;
    const detail = `${Math.floor(free / MIB)} MiB free for the state directory (${neutralizeLine(stateDir)})`;
    const fix = "free space on that file system, or move the state directory (AGENT_COMPUTER_HOME) to a larger one";
    if (free < DISK_ERROR_BYTES) return { status: "error", detail, fix };
    if (free < DISK_WARN_BYTES) return { status: "warn", detail, fix };
    return { status: "ok", detail };
  },
};

export const herdrCheck: DoctorCheck = {
  name: "herdr",
  timeoutMs: 12_000,
  run: async ({ env }): Promise<CheckOutcome> => {
    if (!findProgram("herdr", undefined, env.PATH).path) {
      return {
        status: "warn",
        detail: "herdr is not on PATH: Herdr coordination and auto-wake in Herdr panes are unavailable",
        fix: "install Herdr if you use it (herdr-inspect-cli --help); nothing else needs it",
      };
    }
    const { createHerdrReader } = await import("../../adapters/herdr/reader.ts");
    const s = await createHerdrReader({ env, commandTimeoutMs: 8000 }).status();
    const client = `herdr CLI ${neutralizeLine(s.clientVersion ?? "?")} (protocol ${s.clientProtocol ?? "?"})`;
    if (!s.running) {
      return {
        status: "warn",
        detail: `${client}; no Herdr server is running`,
        fix: "start Herdr when you coordinate agents in it",
      };
    }
    const server = `server ${neutralizeLine(s.version ?? "?")} (protocol ${s.protocol ?? "?"})`;
    if (s.compatible === false) {
      return {
        status: "error",
        detail: `${client} and ${server} speak different protocols: every herdr call fails`,
        fix: "restart the Herdr server on the herdr on PATH (herdr server restart), or update that herdr (herdr-inspect-cli status)",
      };
    }
    return { status: "ok", detail: `${client}, ${server}` };
  },
};

/** A program some features need: found with its version, or a warning naming what is missing without it. */
const programCheck = (
  name: string,
  versionArgs: readonly string[],
  override: string | undefined,
  neededFor: string,
  install: string,
): DoctorCheck => ({
  name,
  run: async ({ env }) => {
    const found = findProgram(name, override === undefined ? undefined : env[override], env.PATH);
    if (!found.path) {
      return {
        status: "warn",
        detail: `${name} not found (${neutralizeLine(found.looked)}): ${neededFor} unavailable`,
        fix: install,
      };
    }
    const version = await programVersion(found.path, versionArgs);
    if (!version) {
      return {
        status: "warn",
        detail: `${neutralizeLine(found.path)} did not tell its version`,
        fix: `run ${found.path} ${versionArgs.join(" ")} by hand`,
      };
    }
    return { status: "ok", detail: `${neutralizeLine(version)} (${neutralizeLine(found.path)})` };
  },
});

export const tmuxCheck = programCheck(
  "tmux",
  ["-V"],
  undefined,
  "auto-wake in tmux panes is",
  "apt-get install tmux (or your system's package)",
);
export const bwrapCheck = programCheck(
  "bwrap",
  ["--version"],
  "AGENT_COMPUTER_BWRAP",
  "herdr-lease-cli writer verify is",
  "apt-get install bubblewrap, or set AGENT_COMPUTER_BWRAP to its absolute path",
);
export const uvCheck = programCheck(
  "uv",
  ["--version"],
  "AGENT_COMPUTER_UV",
  "python recipes of writer verify are",
  "install uv (https://docs.astral.sh/uv/), or set AGENT_COMPUTER_UV to its absolute path",
);

export const pathCheck: DoctorCheck = {
  name: "path",
  run: async ({ env }) => {
    const binDir = `${installPaths().root}/bin`;
    const names = existsSync(binDir) ? readdirSync(binDir).filter((n) => !n.startsWith(".")) : [];
    if (names.length === 0)
      return { status: "warn", detail: `no binaries in ${neutralizeLine(binDir)}`, fix: "run npm ci in the checkout" };
    const missing = names.filter((n) => !findProgram(n, undefined, env.PATH).path);
    if (missing.length === names.length) {
      return {
        status: "warn",
        detail: `none of the ${names.length} binaries is on PATH`,
        fix: `export PATH="${binDir}:$PATH" in your shell profile, or npm install -g the package (README: Use it from your agents)`,
      };
    }
    if (missing.length > 0) {
      return {
        status: "warn",
        detail: `${missing.length} of ${names.length} binaries not on PATH: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}`,
        fix: `put ${binDir} on PATH (an older install earlier on PATH may lack the new ones)`,
      };
    }
    return { status: "ok", detail: `all ${names.length} binaries on PATH` };
  },
};
