// The three settings a user may put in the configuration file (local/config-file.ts), where each value comes from,
// and the environment a command runs with. Precedence: a flag, then the environment variable, then the file, then
// the built-in default. The file is looked for only when a command runs (never for help, version, completion or a
// usage error), only when one of its variables is unset, and read once per process.

import { CONFIG_KEYS, type ConfigFile, type ConfigKey, configFilePath } from "../../local/config-location.ts";
import { resolvePaths } from "../../paths.ts";

export type SettingSource = "flag" | "env" | "config" | "default";

/** One effective setting; `shown` is safe to print (a database password is masked). */
export interface Setting {
  key: ConfigKey;
  variable: string;
  value: string | undefined;
  source: SettingSource;
  shown: string;
}

type Env = Record<string, string | undefined>;

const homeOf = (env: Env) => (): string => env.HOME || (require("node:os") as typeof import("node:os")).homedir();

/** A database URL with its password replaced by ***, for output. */
export const maskDatabaseUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
};

const setFrom = (env: Env, variable: string): string | undefined => env[variable] || undefined;

/** Each setting's effective value and its source, from flags, the environment and the file's settings. */
export const effectiveSettings = (env: Env, file: ConfigFile | undefined, flags: Partial<ConfigFile> = {}): Setting[] =>
  (Object.keys(CONFIG_KEYS) as ConfigKey[]).map((key) => {
    const variable = CONFIG_KEYS[key];
    const [value, source]: [string | undefined, SettingSource] =
      flags[key] !== undefined
        ? [flags[key], "flag"]
        : setFrom(env, variable) !== undefined
          ? [setFrom(env, variable), "env"]
          : file?.[key] !== undefined
            ? [file[key], "config"]
            : [key === "state_dir" ? resolvePaths({ ...env, AGENT_COMPUTER_HOME: undefined }).stateDir : undefined, "default"];
    const shown =
      value === undefined
        ? key === "database_url"
          ? "unset: the embedded SQLite store in the state directory"
          : "unset"
        : key === "database_url"
          ? maskDatabaseUrl(value)
          : value;
    return { key, variable, value, source, shown };
  });

/** The configuration file's path for this environment. */
export const settingsFile = (env: Env): string => configFilePath(env, homeOf(env));

/** The file's settings (undefined without a file); throws CONFIG_INVALID for a bad or non-private file. */
export const loadConfigFile = async (env: Env): Promise<ConfigFile | undefined> => {
  const file = settingsFile(env);
  if (!(await Bun.file(file).exists())) return undefined;
  return (await import("../../local/config-file.ts")).readConfigFile(file, homeOf(env));
};

/**
 * For the operator's doctor: the file's path, whether it exists, and every setting with its value and source, the
 * file read as a command reads it. Throws CONFIG_INVALID (naming the file and key) for a bad or non-private file.
 */
export const loadEffectiveSettings = async (
  env: Env,
  flags: Partial<ConfigFile> = {},
): Promise<{ file: string; present: boolean; settings: Setting[] }> => {
  const loaded = await loadConfigFile(env);
  return { file: settingsFile(env), present: loaded !== undefined, settings: effectiveSettings(env, loaded, flags) };
};

/**
 * The environment a command runs with: the caller's, plus the file's value for each of its variables that is unset.
 * With every variable set, the file is not even looked for.
 */
export const withConfigFile = async (env: Env): Promise<Env> => {
  const missing = (Object.keys(CONFIG_KEYS) as ConfigKey[]).filter((key) => !setFrom(env, CONFIG_KEYS[key]));
  if (missing.length === 0) return env;
  const file = await loadConfigFile(env);
  if (!file) return env;
  const merged = { ...env };
  for (const key of missing) if (file[key] !== undefined) merged[CONFIG_KEYS[key]] = file[key];
  return merged;
};
