// The version line of an installed program (`tmux -V`, `bwrap --version`, `uv --version`) for a health check:
// argument array, no shell, a short timeout and a small buffer, the caller's PATH only.
import { execa } from "execa";

/** The first line the program printed, or null when it failed, hung or printed nothing. */
export const programVersion = async (path: string, args: readonly string[], timeoutMs = 3000): Promise<string | null> => {
  const result = await execa(path, [...args], {
    reject: false,
    timeout: timeoutMs,
    maxBuffer: 64 * 1024,
    stdin: "ignore",
    extendEnv: false,
    env: { LC_ALL: "C" },
  });
  if (result.exitCode !== 0 || result.timedOut) return null;
  const line = `${String(result.stdout)}\n${String(result.stderr)}`.trim().split("\n")[0]?.trim() ?? "";
  return line === "" ? null : line.slice(0, 200);
};
