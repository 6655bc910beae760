import * as z from "zod/mini";
import { type RevokeResult, revokeToken } from "../../domain/agents/revoke.ts";
import { removeVaultToken } from "../../local/vault.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { AUTH_ENV, nameOption } from "./options.ts";

export const revokeOptionsSchema = z.object({
  agentId: nameOption,
  issueRecovery: z
    ._default(z.boolean(), false)
    .check(
      z.describe(
        "keep the name and its history reserved: print a one-time recovery token that register-agent-cli needs to resume it",
      ),
    ),
  tokenFile: tokenFileSchema,
});

export type RevokeOptions = z.output<typeof revokeOptionsSchema>;

const runRevoke = async (options: RevokeOptions, { ctx, ...deps }: DepsOf<"store">): Promise<RevokeResult> => {
  const result = await revokeToken(deps, {
    agentId: options.agentId,
    token: deps.credential?.token,
    issueRecovery: options.issueRecovery,
  });
  // A revoked token in the vault would only produce confusing AUTH_FAILED errors later.
  await removeVaultToken(ctx.paths, options.agentId);
  return result;
};

const render = (r: RevokeResult): string =>
  [
    `${r.name}: token revoked at ${r.revoked_at}; now ${r.auth_state}`,
    ...(r.ended_session_id ? [`  ended session ${r.ended_session_id}`] : []),
    ...(r.recovery_token ? [`  recovery token (shown once): ${r.recovery_token}`, `  ${r.recovery_note}`] : []),
    `  ${r.note}`,
  ].join("\n");

export default defineCommand({
  name: "agent-identity-cli revoke-token",
  summary: "revoke the agent's token; optionally issue a one-time recovery token",
  description:
    "Stops the token of --name at once, ends its session (unread mail bounces to the senders) and removes it from this " +
    "host's vault. With --issue-recovery the name becomes recovery_pending: a recovery token is printed ONCE (only its hash " +
    "is stored) and register-agent-cli accepts the name only with it (--recovery-token-file), minting a fresh token and " +
    "reporting recovery_completed; the recovered name keeps its history. Without --issue-recovery the name is revoked " +
    "and its history ends: tasks assigned to it go to another capable agent or the queue, open tasks it posted are " +
    "cancelled; its automation jobs and triggers " +
    "are cancelled; its webhooks, worker env, contact lists, retry keys and channel memberships are deleted (a channel left " +
    "empty ends), and its mail, threads and sent view are no longer the name's (the other agents keep their copies). " +
    "The next register-agent-cli of it mints a new token for whoever calls first, on any host, keeping the name's " +
    "immutable facts and none of its history.",
  schema: revokeOptionsSchema,
  flags: { agentId: { aliases: ["--name"] } },
  writes:
    "the agent's auth state and token hash (and recovery hash), the end of its session, without --issue-recovery the " +
    "end of its history (above), and removes the vault file.",
  output:
    '{"success":true,"name","auth_state":"revoked|recovery_pending","revoked_at","ended_session_id",' +
    '"recovery_token"?(shown once),"recovery_note"?,"note"}',
  errors: AUTHENTICATED_ERRORS,
  env: AUTH_ENV,
  examples: [
    "agent-identity-cli revoke-token --agent-id builder-1",
    "agent-identity-cli revoke-token --agent-id builder-1 --issue-recovery --json | jq -r .recovery_token > builder-1.recovery",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runRevoke,
  render,
});
