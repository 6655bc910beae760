import * as z from "zod/mini";
import { AppError } from "../../errors.ts";
import { readVaultToken } from "../../local/vault.ts";
import type { CommandContext } from "./context.ts";

export const tokenFileSchema = z
  .optional(z.string().check(z.minLength(1)))
  .check(
    z.describe(
      "file holding the agent token (never pass the token itself in argv); falls back to RELAY_AGENT_TOKEN, then the vault",
    ),
  );

/** The token for an agent: --token-file, then RELAY_AGENT_TOKEN, then the local vault. Never from argv. */
export const resolveToken = async (
  ctx: CommandContext,
  agentId: string,
  tokenFile: string | undefined,
): Promise<string | undefined> => {
  if (tokenFile !== undefined) {
    try {
      const token = (await Bun.file(tokenFile).text()).trim();
      if (token) return token;
    } catch {
      // The path is reported, never the content.
    }
    throw new AppError("INVALID_INPUT", `--token-file: cannot read a token from ${tokenFile}`);
  }
  return ctx.env.RELAY_AGENT_TOKEN?.trim() || readVaultToken(ctx.paths, agentId);
};
