// Runs the real binaries as a user would: a separate process, argument arrays, no colour, a hermetic HOME.

import { join } from "node:path";
import { execa } from "execa";

export const repoRoot = join(import.meta.dirname, "..", "..");
export const binPath = (name: string): string => join(repoRoot, "bin", name);

/**
 * Which form of the binaries the black-box tests run: "source" (TypeScript through the project's Bun) or
 * "compiled" (dist/agent-computer from `npm run build`). One variable switches the whole suite.
 */
export const binaryForm = process.env.AGENT_COMPUTER_TEST_FORM === "compiled" ? "compiled" : "source";

export interface BinResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

export const runBin = async (
  name: string,
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<BinResult> => {
  const result = await execa(binPath(name), args, {
    reject: false,
    env: { FORCE_COLOR: "0", NO_COLOR: "1", AGENT_COMPUTER_FORM: binaryForm, ...options.env },
    input: options.input,
    cwd: options.cwd,
    stripFinalNewline: false,
    timeout: 60_000,
  });
  return binResult(result);
};

/** What a finished binary process left: its exit code (-1 if it had none: killed, timed out) and its output. */
export const binResult = (result: { exitCode?: number | undefined; stdout: unknown; stderr: unknown }): BinResult => ({
  exitCode: result.exitCode ?? -1,
  stdout: String(result.stdout),
  stderr: String(result.stderr),
  json<T>() {
    return JSON.parse(String(result.stdout)) as T;
  },
});
