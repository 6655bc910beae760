import * as z from "zod/mini";
import { type RegisterResult, registerAgent } from "../../domain/agents/register.ts";
import { UNSAVED_AUTH_NOTE } from "../../domain/agents/register-new.ts";
import { CLI_PROFILES } from "../../domain/identity/cli-profiles.ts";
import { agentId, capabilitySchema } from "../../domain/identity/names.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { keepInVault } from "../../local/vault.ts";
import { looksLikeToken, TOKEN_REFUSAL } from "../../token-shape.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { readTokenFile, tokenPathSchema } from "../kernel/credential.ts";
import { FIRST_TOKEN_FILE_DOC, withFirstTokenFile } from "../kernel/first-token-file.ts";
import { oneLine } from "../kernel/one-line.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { renderAgent } from "./options.ts";

export const AGENT_CLASSES = ["orchestrator", "builder", "advisory", "auditor", "transient"] as const;

export const registerOptionsSchema = z
  .object({
    agentId: agentId("the agent name (ASCII)"),
    role: oneLine(64, { min: 1, describe: "free text: orchestrator, builder, ops, …" }),
    capabilities: z
      .array(capabilitySchema)
      .check(z.maxLength(64), z.describe("what it can do (tasks are routed by it); fixed at first registration")),
    class: z
      .optional(z.enum(AGENT_CLASSES))
      .check(z.describe("coordination posture; default unclassified; fixed at first registration")),
    description: z
      .optional(
        z.string().check(
          z.maxLength(512),
          z.refine((text) => !looksLikeToken(text), TOKEN_REFUSAL),
        ),
      )
      .check(z.describe("free text; omitted = keep the stored one")),
    hostId: z
      .optional(
        z.string().check(
          z.regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1-128 of A-Z a-z 0-9 _ . : -"),
          z.refine((id) => !looksLikeToken(id), TOKEN_REFUSAL),
        ),
      )
      .check(z.describe("stable machine id; default AGENT_COMPUTER_HOST_ID or /etc/machine-id; fixed at first registration")),
    managed: z
      .optional(z.boolean())
      .check(z.describe("a managed wrapper, not an interactive terminal; fixed at first registration")),
    agentPid: z
      .optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(4_194_304)))
      .check(z.describe("the agent's own process id on this host: proves it alive or dead instead of guessing from silence")),
    agentPidStart: z
      .optional(z.string().check(z.regex(/^\d{1,20}$/, "must be clock ticks (digits)")))
      .check(z.describe("field 22 of /proc/<pid>/stat (read when omitted): a reused pid reads dead")),
    hostShellPids: z
      .optional(z.array(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(4_194_304))).check(z.maxLength(64)))
      .check(z.describe("process ancestry, own pid first")),
    cliProfile: z
      .optional(z.string().check(z.maxLength(64)))
      .check(z.describe(`agent CLI of this session: ${CLI_PROFILES.join("|")}; anything else is stored as null`)),
    terminalTitleRef: z.optional(oneLine(256, { describe: "the title its terminal was spawned with" })),
    tokenFile: tokenPathSchema(FIRST_TOKEN_FILE_DOC),
    recoveryTokenFile: tokenPathSchema("file (or - for stdin) holding the recovery token"),
    force: z._default(z.boolean(), false).check(z.describe("take the name over: a compare-and-swap on --expected-session-id")),
    expectedSessionId: z
      .optional(z.string().check(z.regex(/^(null|ses_[0-9a-f]{32})$/, "must be a session id (ses_…) or null")))
      .check(z.describe("with --force: the session id you read; null = none open")),
  })
  .check(
    z.superRefine((o, ctx) => {
      if (o.force && o.expectedSessionId === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["expectedSessionId"],
          message: "is required with --force (the session id you read, or null)",
          input: undefined,
        });
      if (!o.force && o.expectedSessionId !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["expectedSessionId"],
          message: "only applies with --force",
          input: o.expectedSessionId,
        });
      if (o.agentPidStart !== undefined && o.agentPid === undefined)
        ctx.addIssue({ code: "custom", path: ["agentPidStart"], message: "needs --agent-pid", input: o.agentPidStart });
    }),
  );

export type RegisterOptions = z.output<typeof registerOptionsSchema>;
export type RegisterOutput = RegisterResult & { vault_file?: string; token_file?: string; warning?: string };

const runRegister = async (options: RegisterOptions, { ctx, ...deps }: DepsOf<"store">): Promise<RegisterOutput> => {
  const recoveryToken =
    options.recoveryTokenFile === undefined
      ? undefined
      : await readTokenFile(ctx, "--recovery-token-file", options.recoveryTokenFile);
  let vault: { vault_file?: string; warning?: string } = {};
  const result = await withFirstTokenFile(ctx, options.agentId, options.tokenFile, async (token) => {
    const done = await registerAgent(deps, {
      ...options,
      agentId: options.agentId,
      agentClass: options.class,
      token,
      recoveryToken,
      takeover: options.force
        ? { expectedSessionId: options.expectedSessionId === "null" ? null : (options.expectedSessionId ?? null) }
        : undefined,
    });
    if (!done.agent_token) return done;
    vault = await keepInVault(ctx.paths, options.agentId, done.agent_token);
    return vault.warning ? { ...done, auth_note: UNSAVED_AUTH_NOTE } : done;
  });
  return { ...result, ...vault };
};

const render = (r: RegisterOutput): string => {
  const lines = [`${r.message}`, ...renderAgent(r.agent)];
  if (r.agent_token) lines.push(`  agent token (shown once): ${r.agent_token}`, `  ${r.auth_note}`);
  if (r.token_file) lines.push(`  agent token written to ${neutralizeLine(r.token_file)} (0600), not shown`);
  if (r.recovery_completed) lines.push("  recovery completed: the revoked token was replaced by the one above");
  if (r.ended_session_id)
    lines.push(`  ended the previous session ${r.ended_session_id} (its unread mail bounced to the senders)`);
  if (r.capabilities_note) lines.push(`  note: ${r.capabilities_note}`);
  if (r.cli_profile_note) lines.push(`  note: ${neutralizeLine(r.cli_profile_note)}`);
  for (const t of r.auto_assigned_tasks ?? [])
    lines.push(`  auto-assigned: ${t.task_id} [${t.priority}] ${neutralizeLine(t.title)}`);
  return lines.join("\n");
};

export default defineCommand({
  name: "register-agent-cli",
  summary: "register this terminal as a named agent (token once, presence, auto-assigned tasks); call it first in a session",
  description:
    "Idempotent upsert of --name, first in a session and on reconnect (as a first agent-checkin-cli --confirm); each " +
    "call starts or renews its presence session.\n" +
    "Token: printed ONCE at first registration (agent_token) and saved to this host's 0600 vault; only its SHA-256 is " +
    "stored. Re-registering keeps it and needs it (--token-file, RELAY_AGENT_TOKEN or the vault).\n" +
    "Fixed at first registration: capabilities (another set: capabilities_note; agent-identity-cli " +
    "expand-capabilities), class, host id, managed (another value: INVALID_INPUT). Description kept when omitted; pid, " +
    "shell pids, cli profile and title (the holder's) replaced.\n" +
    "Live holder: NAME_COLLISION_ACTIVE (existing_session_id). Where its --agent-pid was recorded the process decides " +
    "(gone, zombie or another start time = dead); elsewhere its ttl. The holder itself (same pid and start) renews.\n" +
    "Takeover: --force with --expected-session-id <id|null> (both or neither: INVALID_INPUT) compare-and-swaps the " +
    "session id you read (agents-list-cli; null = none open); a racing loser gets FORCE_PRECONDITION_FAILED: re-read, " +
    "do not retry. The ended session's unread mail bounces to its senders.\n" +
    "Recovery: after agent-identity-cli revoke-token --issue-recovery, only --recovery-token-file registers (without: " +
    "AUTH_FAILED; wrong: RECOVERY_REQUIRED) and mints a fresh token (recovery_completed), history kept. Revoked " +
    "without recovery: a new token, none of its history.\n" +
    "It takes queued tasks its capabilities cover, of posters it accepts (auto_assigned_tasks). Rate limits: " +
    "Environment. Tokens stop impersonation between agents, not a hostile process of the same user.",
  schema: registerOptionsSchema,
  flags: {
    agentId: { aliases: ["--name"] },
    capabilities: { aliases: ["--caps"] },
    agentPidStart: { placeholder: "<ticks>" },
    terminalTitleRef: { placeholder: "<title>" },
    recoveryTokenFile: { placeholder: "<path|->" },
    expectedSessionId: { placeholder: "<id|null>" },
  },
  writes:
    "the agent row, its presence session (ending the one it replaces), queued tasks it takes (an inbox notice each), " +
    "rate counters, the vault file when a token is minted; pid facts stay in this host's state dir.",
  output:
    '{"success":true,"action":"registered|re_registered|renewed|taken_over|recovered","agent":{the options as ' +
    'snake_case fields (class, host_id, agent_pid, …),"auth_state","session_id","alive","liveness_evidence":"pid|age",' +
    '"created_at","last_seen_at"},"protocol_version":1,"message","agent_token"?|"token_file"?(minted),"auth_note"?,"vault_file"?|"warning"?(vault not written),' +
    '"capabilities_note"?,"cli_profile_note"?,"auto_assigned_tasks"?:[{"task_id","title","priority"}],' +
    '"recovery_completed"?:true,"ended_session_id"?}. Error details: NAME_COLLISION_ACTIVE {existing_session_id, ' +
    "liveness_evidence}, FORCE_PRECONDITION_FAILED {expected_session_id, actual_session_id}, RATE_LIMITED " +
    "{retry_after_s, scope, limit, window_s}.",
  errors: [
    "INVALID_INPUT",
    "AUTH_FAILED",
    "RECOVERY_REQUIRED",
    "NAME_COLLISION_ACTIVE",
    "NAME_LOOKALIKE",
    "FORCE_PRECONDITION_FAILED",
    "RATE_LIMITED",
    ...STORE_ERRORS,
    "INTERNAL",
  ],
  env: [
    "AGENT_COMPUTER_HOME",
    "AGENT_COMPUTER_DATABASE_URL",
    "RELAY_AGENT_TOKEN",
    "AGENT_COMPUTER_HOST_ID",
    "AGENT_COMPUTER_RATE_REGISTER_PER_NAME",
    "AGENT_COMPUTER_RATE_REGISTER_PER_HOST",
  ],
  examples: [
    "register-agent-cli --agent-id builder-1 --role builder --capabilities ts,sql --class builder --agent-pid $PPID --cli-profile claude",
    "register-agent-cli --agent-id builder-1 --role builder --capabilities ts --force --expected-session-id null --json",
    "register-agent-cli --agent-id builder-1 --role builder --capabilities ts --recovery-token-file builder-1.recovery",
  ],
  needs: { deps: "store" },
  run: runRegister,
  render,
});
