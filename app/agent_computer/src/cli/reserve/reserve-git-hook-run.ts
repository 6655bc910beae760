import * as z from "zod/mini";
import { parsePushLines, pushedPaths, stagedPaths } from "../../adapters/git-paths.ts";
import { type GuardResult, guardPaths } from "../../domain/reservations/guard.ts";
import { findRepository, gitFailure } from "../../domain/reservations/repository.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { GUARDED_HOOKS } from "../../local/git-hooks.ts";
import { defineCommand } from "../kernel/command.ts";

const MAX_PUSH_INPUT_BYTES = 1024 * 1024;

const repoSchema = z
  .optional(z.string().check(z.minLength(1), z.maxLength(4096)))
  .check(z.describe("a directory inside the repository (default: the current directory)"));

const runSchema = z.object({
  hook: z.enum(GUARDED_HOOKS).check(z.describe("which hook is running")),
  repo: repoSchema,
});
export default defineCommand({
  name: "agent-reserve-cli git-hook run",
  summary:
    "the guard itself, as the installed hooks run it: refuse a commit or push touching another agent's exclusive reservation",
  description:
    "pre-commit checks the paths the index being committed changes (both sides of a rename); pre-push reads git's " +
    "pre-push lines on stdin and checks every path the pushed commits change. A path covered by a live exclusive " +
    "reservation of an agent other than AGENT_COMPUTER_AGENT_ID (unset: any agent) refuses with CONFLICT, naming the " +
    "holder, its patterns, its expiry and the paths. Advisory: --no-verify skips it.",
  schema: runSchema,
  args: [{ key: "hook", name: "HOOK" }],
  writes: "nothing.",
  output: '{"repo","agent_id","checked_paths","allowed":true}',
  errors: ["INVALID_INPUT", "CONFLICT", "UNSUPPORTED", ...STORE_ERRORS, "INTERNAL"],
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "AGENT_COMPUTER_AGENT_ID"],
  examples: ["agent-reserve-cli git-hook run pre-commit"],
  needs: { deps: "store" },
  run: async (o, deps) => {
    const env = deps.ctx.env;
    const repo = await findRepository(o.repo ?? process.cwd(), deps.host, env);
    const paths = await (o.hook === "pre-commit"
      ? stagedPaths(repo.topLevel, env)
      : pushedPaths(repo.topLevel, parsePushLines(await deps.ctx.readInput("-", MAX_PUSH_INPUT_BYTES)), env)
    ).catch((error: unknown) => {
      throw gitFailure(error);
    });
    const agentId = env.AGENT_COMPUTER_AGENT_ID || undefined;
    const worktree = { hostId: deps.local.hostId, path: repo.topLevel };
    return guardPaths(deps, { repoKey: repo.key, agentId, paths, action: o.hook === "pre-commit" ? "commit" : "push", worktree });
  },
  render: (r: GuardResult) => `allowed: ${r.checked_paths} path(s) touch no other agent's exclusive reservation`,
});
