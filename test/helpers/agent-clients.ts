// Running the real AI clients (Claude Code, Codex) offline in a test: the README's install blocks with this
// checkout's path, Claude Code's offline environment, and one client run whose process group is always killed
// afterwards. The clients are no dependency of the project: scripts/test-all.sh installs their pinned versions
// into test-clients/ from its own lock file (`npm ci --prefix test-clients`).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { repoRoot } from "./bin.ts";

export const TEST_CLIENTS = join(repoRoot, "test-clients");
export const CLAUDE = join(TEST_CLIENTS, "node_modules", ".bin", "claude");
export const CODEX = join(TEST_CLIENTS, "node_modules", ".bin", "codex");

/** The fenced blocks of one language in the README's "Use it from your agents", with the checkout's real path. */
export const readmeBlocks = (lang: string): string[] => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const section = readme.split(/^## Use it from your agents$/m)[1]?.split(/^## /m)[0] ?? "";
  const fence = new RegExp(`^ *\`\`\`${lang}\n([\\s\\S]*?)^ *\`\`\`$`, "gm");
  return [...section.matchAll(fence)].map((m) => (m[1] as string).replaceAll("/path/to/agent-computer", repoRoot));
};

/**
 * Claude Code's whole environment for an offline session against a scripted Messages API at `apiUrl`: a scratch
 * HOME and TMPDIR, a fake key, and everything that would phone out turned off (Claude Code's
 * documented DISABLE_* switches and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).
 */
export const offlineClaudeEnv = (
  home: string,
  tmp: string,
  apiUrl: string,
  extra: Record<string, string> = {},
): Record<string, string> => ({
  HOME: home,
  PATH: "/usr/local/bin:/usr/bin:/bin",
  ANTHROPIC_BASE_URL: apiUrl,
  ANTHROPIC_API_KEY: "sk-scripted-offline",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  TMPDIR: tmp,
  NO_COLOR: "1",
  ...extra,
});

/**
 * One client run with exactly `env`, in its own process group, killed whole once it ends (a client leaves helpers
 * behind). Never rejects: the caller asserts on exitCode with `output` (stdout and stderr) as the message.
 */
export const runClient = async (
  bin: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: "ignore" },
) => {
  // A missing client fails with the command that installs it, not with a spawn error.
  if (!existsSync(bin)) throw new Error(`${bin} is missing: install the test clients with npm ci --prefix test-clients`);
  const child = execa(bin, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    reject: false,
    timeout: 150_000,
    detached: true,
    ...(options.stdin ? { stdin: options.stdin } : {}),
  });
  try {
    const result = await child;
    return { exitCode: result.exitCode, stdout: String(result.stdout), output: `${result.stdout}\n${result.stderr}` };
  } finally {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // the group already ended
    }
  }
};

/** The JSON objects of a client's line-delimited JSON output (stream-json, --json), other lines skipped. */
export const jsonLines = <T>(stdout: string): T[] =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as T);
