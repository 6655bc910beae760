// What every automation command shares: the owner options, id formats and the worker's base URL.
import * as z from "zod/mini";
import { agentId } from "../../domain/identity/names.ts";
import { looksLikeToken, TOKEN_REFUSAL } from "../../token-shape.ts";
import type { KernelDeps } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/command-context.ts";
import { tokenFileSchema } from "../kernel/credential.ts";

export const ownerFields = {
  agentId: agentId("the owning agent (authenticated with its token); jobs and triggers belong to it"),
  tokenFile: tokenFileSchema,
};

export const OWNER_ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"] as const;
export const OWNER_ERRORS = ["INVALID_INPUT", "AUTH_FAILED", "RECOVERY_REQUIRED", "UNKNOWN_AGENT"] as const;

const idOf = (prefix: string, what: string) =>
  z.string().check(z.regex(new RegExp(`^${prefix}_[0-9a-f]{32}$`), `must be ${what} id (${prefix}_…)`));

export const jobIdSchema = idOf("job", "an automation job");
export const runIdSchema = idOf("run", "a run");
export const triggerIdSchema = z
  .string()
  .check(z.regex(/^(chk|cron|hook)_[0-9a-f]{32}$/, "must be a trigger id (chk_…, cron_… or hook_…)"));

export const labelSchema = z.string().check(
  z.minLength(1),
  z.maxLength(200),
  z.regex(/^[^\n\r]*$/, "must be one line"),
  z.refine((label) => !looksLikeToken(label), TOKEN_REFUSAL),
);

/** The owner a call acts as: the agent and the credential the kernel resolved for it (needs.credential). */
export const owner = (options: { agentId: string }, deps: Pick<KernelDeps, "credential">) => ({
  agentId: options.agentId,
  token: deps.credential?.token,
});

/** The owner flags of a printed follow-up command: the same agent, authenticated the same way. */
export const ownerWords = (options: { agentId: string; tokenFile?: string | undefined }): string[] => [
  "--agent-id",
  options.agentId,
  ...(options.tokenFile === undefined ? [] : ["--token-file", options.tokenFile]),
];

/** The base of webhook URLs printed by the CLIs (the worker on this host). */
export const workerBaseUrl = (ctx: CommandContext): string => ctx.env.AGENT_COMPUTER_WORKER_URL || "http://127.0.0.1:8787";
