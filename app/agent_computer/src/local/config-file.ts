// The optional configuration file, $XDG_CONFIG_HOME/agent-computer/config.toml (default ~/.config/…): the state
// directory, the database URL and the default agent id, each the fallback of its environment variable. It may hold a
// database password, so it must be private: a file that its group or other users may read or write, or that another
// user owns, is refused (CONFIG_INVALID) rather than trusted. Parsed with Bun's own TOML parser, validated with zod.

import * as z from "zod/mini";
import { AGENT_ID_PATTERN, AGENT_ID_RULE } from "../agent-id.ts";
import { AppError } from "../errors.ts";
import { neutralizeLine } from "../terminal-text.ts";
import { CONFIG_KEYS, type ConfigFile } from "./config-location.ts";

const configSchema = z.strictObject({
  state_dir: z.optional(
    z.string().check(z.refine((v) => v.startsWith("/") || v.startsWith("~/"), "must be an absolute path (or start with ~/)")),
  ),
  database_url: z.optional(
    z.string().check(z.refine((v) => /^postgres(ql)?:\/\//.test(v), "must start with postgres:// or postgresql://")),
  ),
  agent_id: z.optional(z.string().check(z.regex(AGENT_ID_PATTERN, `must be ${AGENT_ID_RULE}`))),
});

const invalid = (file: string, what: string, hint: string): AppError =>
  new AppError("CONFIG_INVALID", `${neutralizeLine(file)}: ${what}`, { hint, details: { file } });

/** A value is shown back only where it cannot be a secret. */
const shown = (key: PropertyKey | undefined, input: unknown): string =>
  key === "database_url" || typeof input !== "string" ? "" : ` (got ${neutralizeLine(JSON.stringify(input))})`;

/** The settings a file holds, validated; `~/` in state_dir is the home directory. */
export const parseConfigText = (file: string, text: string, home: () => string): ConfigFile => {
  let raw: unknown;
  try {
    raw = Bun.TOML.parse(text);
  } catch (error) {
    const message = String((error as { message?: string }).message ?? error).replace(/^TOML Parse error: /, "");
    throw invalid(file, `not valid TOML: ${neutralizeLine(message)}`, "fix the file's syntax");
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path[0];
    if (issue?.code === "unrecognized_keys") {
      const keys = (issue as { keys?: string[] }).keys ?? [];
      throw invalid(
        file,
        `unknown key ${neutralizeLine(keys.join(", "))}`,
        `the file knows only ${Object.keys(CONFIG_KEYS).join(", ")}`,
      );
    }
    const input = key === undefined ? undefined : (raw as Record<PropertyKey, unknown>)[key];
    const message = typeof input === "string" ? (issue?.message ?? "invalid") : "must be a string";
    throw invalid(file, `${String(key ?? "the file")}: ${message}${shown(key, input)}`, "fix that key or remove it");
  }
  const settings: ConfigFile = { ...parsed.data };
  if (settings.state_dir?.startsWith("~/")) settings.state_dir = `${home()}${settings.state_dir.slice(1)}`;
  return settings;
};

/** The file's settings, or undefined when there is no file. Refuses a file others may read or write. */
export const readConfigFile = async (file: string, home: () => string): Promise<ConfigFile | undefined> => {
  const handle = Bun.file(file);
  if (!(await handle.exists())) return undefined;
  const stat = await handle.stat();
  const mine = typeof process.getuid !== "function" || stat.uid === process.getuid();
  if (!mine || (stat.mode & 0o077) !== 0) {
    const what = mine ? `mode ${(stat.mode & 0o777).toString(8)} lets other users read or change it` : "owned by another user";
    throw invalid(file, `${what}; it may hold a database password`, `chmod 600 ${file} (and own it)`);
  }
  return parseConfigText(file, await handle.text(), home);
};
