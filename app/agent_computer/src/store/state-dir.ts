// Why the state directory could not hold the store, said in terms of the setting that chose it. Loaded only
// after opening the embedded store failed, so it costs nothing on the normal path.
import { statSync } from "node:fs";
import { AppError } from "../errors.ts";
import { stateDirSetting } from "../paths.ts";

/** Failures that say the location is unusable (not a bug, not a busy store). */
const LOCATION_ERRORS = new Set(["ENOTDIR", "EEXIST", "EACCES", "EPERM", "EROFS", "ELOOP", "ENAMETOOLONG", "SQLITE_CANTOPEN"]);

const kindOf = (path: string): "dir" | "other" | undefined => {
  try {
    return statSync(path).isDirectory() ? "dir" : "other";
  } catch {
    return undefined;
  }
};

/** The nearest existing path at or above `path`, with what it is. */
const nearestExisting = (path: string): { path: string; kind: "dir" | "other" } | undefined => {
  for (let at = path; at !== "" && at !== "/"; at = at.slice(0, at.lastIndexOf("/"))) {
    const kind = kindOf(at);
    if (kind) return { path: at, kind };
  }
  return undefined;
};

const problemWith = (stateDir: string, code: string): string => {
  const existing = nearestExisting(stateDir);
  if (existing?.kind === "other") {
    return existing.path === stateDir
      ? `${stateDir} exists and is not a directory`
      : `${existing.path} is a file, not a directory, so ${stateDir} cannot be created under it`;
  }
  if (code === "EACCES" || code === "EPERM") return `permission denied creating or writing ${stateDir}`;
  if (code === "EROFS") return `${stateDir} is on a read-only file system`;
  return `${stateDir} cannot hold the store (${code})`;
};

/**
 * CONFIG_INVALID naming the variable that chose the state directory and what is wrong with it, when `error` is a
 * failure of the location itself; undefined for any other failure (which keeps its own code).
 */
export const unusableStateDir = (
  env: Record<string, string | undefined>,
  stateDir: string,
  error: unknown,
): AppError | undefined => {
  const code = String((error as { code?: unknown })?.code ?? "");
  if (!LOCATION_ERRORS.has(code)) return undefined;
  const { variable, value } = stateDirSetting(env);
  const via = variable === "AGENT_COMPUTER_HOME" ? "" : ` (the state directory under ${variable}=${value})`;
  return new AppError(
    "CONFIG_INVALID",
    `${variable === "AGENT_COMPUTER_HOME" ? `AGENT_COMPUTER_HOME=${value}: ` : ""}${problemWith(stateDir, code)}${via}`,
    {
      hint: "set AGENT_COMPUTER_HOME to a directory this user may create and write (created 0700 if missing), or AGENT_COMPUTER_DATABASE_URL to use PostgreSQL",
      details: { variable, state_dir: stateDir },
      cause: error,
    },
  );
};
