// The guard's hook files. A hook that is already there (not ours) is kept: it moves beside ours as
// <hook>.before-agent-reserve and ours runs it first, with the same arguments and the same stdin, and stops on its
// failure. Installing again rewrites only our own file, so it never chains itself.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../errors.ts";

export const GUARDED_HOOKS = ["pre-commit", "pre-push"] as const;
export type GuardedHook = (typeof GUARDED_HOOKS)[number];

const MARKER = "# agent-reserve-cli git guard";
export const CHAINED_SUFFIX = ".before-agent-reserve";

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** pre-push reads its refs on stdin; both the chained hook and ours need them, so they are kept in a file first. */
const script = (hook: GuardedHook): string => {
  const chained = shellQuote(`${hook}${CHAINED_SUFFIX}`);
  const stdin = hook === "pre-push";
  return [
    "#!/bin/sh",
    `${MARKER} (installed by agent-reserve-cli git-hook install; advisory: --no-verify skips it).`,
    'dir=$(dirname "$0")',
    ...(stdin ? ["input=$(mktemp) || exit 1", "trap 'rm -f \"$input\"' EXIT", 'cat > "$input"'] : ["input=/dev/null"]),
    `if [ -x "$dir"/${chained} ]; then`,
    `  "$dir"/${chained} "$@" < "$input" || exit $?`,
    "fi",
    "if ! command -v agent-reserve-cli >/dev/null 2>&1; then",
    "  echo 'agent-reserve-cli guard: agent-reserve-cli is not on PATH; reservations were not checked' >&2",
    "  exit 0",
    "fi",
    `agent-reserve-cli git-hook run ${hook} < "$input"`,
    "",
  ].join("\n");
};

export interface InstalledHook {
  hook: GuardedHook;
  path: string;
  action: "installed" | "updated";
  /** The hook that was there before, now run first by ours. */
  chained: string | null;
}

const isOurs = (path: string): boolean => existsSync(path) && readFileSync(path, "utf8").includes(MARKER);

/** Checks both hooks before touching either, so a refusal changes nothing. */
export const installGuardHooks = (hooksDir: string): InstalledHook[] => {
  for (const hook of GUARDED_HOOKS) {
    const path = join(hooksDir, hook);
    if (existsSync(path) && !isOurs(path) && existsSync(`${path}${CHAINED_SUFFIX}`)) {
      throw new AppError("CONFLICT", `${path} is not ours and ${path}${CHAINED_SUFFIX} already exists; nothing was changed`, {
        hint: "merge the two by hand, remove one, then install again",
      });
    }
  }
  mkdirSync(hooksDir, { recursive: true });
  return GUARDED_HOOKS.map((hook) => {
    const path = join(hooksDir, hook);
    const chainedPath = `${path}${CHAINED_SUFFIX}`;
    const ours = isOurs(path);
    if (existsSync(path) && !ours) renameSync(path, chainedPath);
    writeFileSync(path, script(hook), { mode: 0o755 });
    chmodSync(path, 0o755);
    return {
      hook,
      path,
      action: ours ? ("updated" as const) : ("installed" as const),
      chained: existsSync(chainedPath) ? chainedPath : null,
    };
  });
};
