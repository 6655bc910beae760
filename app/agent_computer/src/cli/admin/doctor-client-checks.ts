// Doctor's checks of the coding clients on this user's account: the project's Skills linked where Claude Code and
// Codex read them, and the SessionStart hook registered. Project-level set-ups (<project>/.claude) are not seen
// from here; a client that is not set up at all on this account is fine (nothing to check).
import { existsSync, readdirSync } from "node:fs";
import { installPaths } from "../../worker/install-paths.ts";
import type { CheckOutcome, DoctorCheck } from "./doctor-check.ts";

const home = (env: Record<string, string | undefined>): string => env.HOME ?? "";

const projectSkills = (): string[] => {
  const dir = installPaths().defaultSkillsDir;
  return existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(`${dir}/${n}/SKILL.md`)) : [];
};

const mentionsHook = async (file: string): Promise<boolean> =>
  existsSync(file) && (await Bun.file(file).text()).includes("hooks/session-start");

const clientCheck = (
  name: string,
  client: string,
  paths: (env: Record<string, string | undefined>) => { configDir: string; skillsDir: string; hooksFile: string },
): DoctorCheck => ({
  name,
  run: async ({ env }): Promise<CheckOutcome> => {
    const { configDir, skillsDir, hooksFile } = paths(env);
    if (!existsSync(configDir))
      return { status: "ok", detail: `${client} is not set up for this user (${configDir}): nothing to check` };
    const skills = projectSkills();
    const missing = skills.filter((s) => !existsSync(`${skillsDir}/${s}/SKILL.md`));
    const hook = await mentionsHook(hooksFile);
    const problems = [
      ...(missing.length > 0 ? [`Skills not linked in ${skillsDir}: ${missing.join(", ")}`] : []),
      ...(hook ? [] : [`no SessionStart hook in ${hooksFile}`]),
    ];
    if (problems.length === 0)
      return { status: "ok", detail: `${skills.length} Skills linked, SessionStart hook set (${client})` };
    return {
      status: "warn",
      detail: problems.join("; "),
      fix: `link the Skills (ln -s ${installPaths().defaultSkillsDir}/<name> ${skillsDir}/<name>) and add the hooks: README, Use it from your agents`,
    };
  },
});

export const claudeCodeCheck = clientCheck("claude-code", "Claude Code", (env) => {
  const configDir = env.CLAUDE_CONFIG_DIR || `${home(env)}/.claude`;
  return { configDir, skillsDir: `${configDir}/skills`, hooksFile: `${configDir}/settings.json` };
});

export const codexCheck = clientCheck("codex", "Codex", (env) => {
  const configDir = env.CODEX_HOME || `${home(env)}/.codex`;
  return { configDir, skillsDir: `${home(env)}/.agents/skills`, hooksFile: `${configDir}/hooks.json` };
});
