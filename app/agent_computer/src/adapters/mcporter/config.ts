// The per-attempt mcporter configuration, generated from the MCP servers the active Skills declare in
// skills/<name>/mcp.json ({"mcpServers": {<server>: <mcporter server entry>}}). "imports": [] keeps
// mcporter from merging editor configs (Cursor, Claude, Codex, …) from the home or job directory, and every
// server is ephemeral so no keep-alive daemon outlives the attempt.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { parseJson } from "../../json-depth.ts";

export interface SkillDeclaration {
  skill: string;
  dir: string;
  /** The parsed mcp.json, or the reason it could not be read. */
  mcp: unknown;
}

export interface McporterConfig {
  imports: [];
  mcpServers: Record<string, Record<string, unknown>>;
}

/** Reads every skills/<name>/mcp.json now (Skills are read fresh for each attempt). */
export const readSkillDeclarations = (skillsDir: string): SkillDeclaration[] => {
  if (!existsSync(skillsDir)) return [];
  const found: SkillDeclaration[] = [];
  for (const name of readdirSync(skillsDir).sort()) {
    const dir = join(skillsDir, name);
    const file = join(dir, "mcp.json");
    if (!statSync(dir).isDirectory() || !existsSync(file)) continue;
    let mcp: unknown;
    try {
      mcp = parseJson(readFileSync(file, "utf8"));
    } catch (error) {
      mcp = { error: `mcp.json is not valid JSON: ${(error as Error).message}` };
    }
    found.push({ skill: name, dir: realpathSync(dir), mcp });
  }
  return found;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const SKILL_DIR_PLACEHOLDER = "$" + "{SKILL_DIR}";

const expand = (value: unknown, skillDir: string): unknown =>
  typeof value === "string" ? value.replaceAll(SKILL_DIR_PLACEHOLDER, skillDir) : value;

/** ${SKILL_DIR} in command, args and cwd becomes the skill's directory; a relative cwd is relative to it. */
const serverEntry = (entry: Record<string, unknown>, skillDir: string): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...entry, lifecycle: "ephemeral" };
  if (entry.command !== undefined) {
    out.command = Array.isArray(entry.command) ? entry.command.map((c) => expand(c, skillDir)) : expand(entry.command, skillDir);
    const cwd = typeof entry.cwd === "string" ? (expand(entry.cwd, skillDir) as string) : skillDir;
    out.cwd = isAbsolute(cwd) ? cwd : resolve(skillDir, cwd);
  }
  if (Array.isArray(entry.args)) out.args = entry.args.map((a) => expand(a, skillDir));
  return out;
};

/** Pure: the config and the problems found (a bad declaration is skipped, never fatal to the run). */
export const buildMcporterConfig = (skills: readonly SkillDeclaration[]): { config: McporterConfig; problems: string[] } => {
  const servers: Record<string, Record<string, unknown>> = {};
  const problems: string[] = [];
  for (const { skill, dir, mcp } of skills) {
    if (!isObject(mcp) || !isObject(mcp.mcpServers)) {
      problems.push(
        `skill ${skill}: ${isObject(mcp) && typeof mcp.error === "string" ? mcp.error : 'mcp.json needs an "mcpServers" object'}`,
      );
      continue;
    }
    for (const [name, entry] of Object.entries(mcp.mcpServers)) {
      if (!isObject(entry)) problems.push(`skill ${skill}: server ${name} is not an object`);
      else if (servers[name])
        problems.push(`skill ${skill}: server ${name} is already declared by another skill; kept the first`);
      else servers[name] = serverEntry(entry, dir);
    }
  }
  return { config: { imports: [], mcpServers: servers }, problems };
};
