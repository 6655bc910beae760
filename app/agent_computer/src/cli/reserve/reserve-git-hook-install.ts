import * as z from "zod/mini";
import { hooksDirectory } from "../../adapters/git-paths.ts";
import { findRepository, gitFailure } from "../../domain/reservations/repository.ts";
import { type InstalledHook, installGuardHooks } from "../../local/git-hooks.ts";
import { defineCommand } from "../kernel/command.ts";
import { repoSchema } from "./reserve-flags.ts";

const installSchema = z.object({ repo: repoSchema });
export default defineCommand({
  name: "agent-reserve-cli git-hook install",
  summary: "add the reservation guard's pre-commit and pre-push hooks to a repository",
  description:
    "Writes both hooks into the directory git runs hooks from (core.hooksPath when set, else the repository's hooks " +
    "directory, shared by its worktrees). A hook already there is kept and chained: it is renamed " +
    "<hook>.before-agent-reserve and runs first, with the same arguments and stdin; its failure stops the commit. " +
    "Installing again only rewrites the guard's own hooks. The hooks call agent-reserve-cli from PATH (without it they " +
    "warn and let the commit through) and name the committer by AGENT_COMPUTER_AGENT_ID. Advisory: git commit " +
    "--no-verify and git push --no-verify skip them.",
  schema: installSchema,
  writes: "the pre-commit and pre-push hook files (and the renamed hooks they chain).",
  output: '{"hooks":[{"hook","path","action":"installed|updated","chained"}]}',
  errors: ["INVALID_INPUT", "CONFLICT", "UNSUPPORTED", "INTERNAL"],
  env: [],
  examples: ["agent-reserve-cli git-hook install", "agent-reserve-cli git-hook install --repo ~/src/app"],
  needs: { deps: "none" },
  run: async (o, deps) => {
    const dir = o.repo ?? process.cwd();
    await findRepository(dir, "", deps.ctx.env);
    const hooksDir = await hooksDirectory(dir, deps.ctx.env).catch((error: unknown) => {
      throw gitFailure(error);
    });
    return { hooks: installGuardHooks(hooksDir) };
  },
  render: (r: { hooks: InstalledHook[] }) =>
    r.hooks.map((h) => `${h.action} ${h.path}${h.chained ? ` (runs ${h.chained} first)` : ""}`).join("\n"),
});
