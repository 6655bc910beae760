import * as z from "zod/mini";
import { type RotateResult, rotateToken } from "../../domain/agents/rotate.ts";
import { writeVaultToken } from "../../local/vault.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { AUTH_ENV, nameOption } from "./options.ts";

export const rotateOptionsSchema = z.object({ agentId: nameOption, tokenFile: tokenFileSchema });

export type RotateOptions = z.output<typeof rotateOptionsSchema>;
export type RotateOutput = RotateResult & { vault_file: string };

const runRotate = async (options: RotateOptions, { ctx, ...deps }: DepsOf<"store">): Promise<RotateOutput> => {
  const result = await rotateToken(deps, {
    agentId: options.agentId,
    token: deps.credential?.token,
  });
  return { ...result, vault_file: await writeVaultToken(ctx.paths, options.agentId, result.agent_token) };
};

const render = (r: RotateOutput): string =>
  [`${r.name}: token rotated at ${r.rotated_at}`, `  agent token (shown once): ${r.agent_token}`, `  ${r.auth_note}`].join("\n");

export default defineCommand({
  name: "agent-identity-cli rotate-token",
  summary: "replace the agent's token with a new one (shown once)",
  description:
    "Mints a new token for --name and stops the old one at once (a compare-and-swap on the old token, so two rotations " +
    "cannot both win). The new token is printed once and replaces the old one in this host's 0600 vault; wherever else the " +
    "old token was kept (RELAY_AGENT_TOKEN, a --token-file) must be updated. Use it after a suspected leak that does not " +
    "warrant revoke-token.",
  schema: rotateOptionsSchema,
  flags: { agentId: { aliases: ["--name"] } },
  writes: "the token hash of the agent and the vault file of this host.",
  output: '{"success":true,"name","agent_token"(shown once),"auth_note","rotated_at","vault_file"}',
  errors: AUTHENTICATED_ERRORS,
  env: AUTH_ENV,
  examples: [
    "agent-identity-cli rotate-token --agent-id builder-1",
    "agent-identity-cli rotate-token --agent-id builder-1 --json | jq -r .vault_file",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runRotate,
  render,
});
