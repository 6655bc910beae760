import * as z from "zod/mini";
import { TokenMismatch } from "../../domain/identity/token-mismatch.ts";
import { AppError, type ErrorCode, STORE_ERRORS } from "../../errors.ts";
import { readVaultToken } from "../../local/vault.ts";
import { neutralizeLine } from "../../terminal-text.ts";
import type { CommandContext } from "./command-context.ts";
import { readFlagInput } from "./input.ts";
import { looksLikeToken } from "./redact-tokens.ts";

/**
 * What a command that authenticates an agent and opens the store can answer, with its own codes (`codes`) after the
 * authentication ones and before the store's, the order every help lists them in.
 */
export const authenticatedErrorsWith = (...codes: ErrorCode[]): readonly ErrorCode[] => [
  "INVALID_INPUT",
  "AUTH_FAILED",
  "RECOVERY_REQUIRED",
  "UNKNOWN_AGENT",
  ...codes,
  ...STORE_ERRORS,
  "INTERNAL",
];

/** What a command that authenticates an agent and opens the store can answer, and nothing else. */
export const AUTHENTICATED_ERRORS: readonly ErrorCode[] = authenticatedErrorsWith();

/** The help sentence of a command whose only write is presence (domain/mesh/live-session.ts withPresence). */
export const PRESENCE_FALLBACK =
  " When the store cannot take that write (disk full, read-only store) the answer is still given, with a" +
  ' "warning" (also on stderr) saying why presence was not renewed.';

/**
 * A flag naming the file that holds a token. The token itself given instead is refused without being echoed: read as a
 * path it would be printed back in "cannot read" errors, or become the name of a file a new token is written to.
 */
export const tokenPathSchema = (describe: string) =>
  z
    .optional(
      z.string().check(
        z.minLength(1),
        z.refine(
          (value) => !looksLikeToken(value),
          "is a token, not a file: put the token in a 0600 file and pass that file's path (- reads it from stdin); " +
            "a token typed in argv is seen by other processes and kept in shell history, so treat it as exposed",
        ),
      ),
    )
    .check(z.describe(describe));

export const tokenFileSchema = tokenPathSchema(
  "file holding the agent token (never pass the token itself in argv); falls back to RELAY_AGENT_TOKEN, then the vault",
);

/** A token is 60-odd characters; a file much larger than that holds no token. */
export const MAX_TOKEN_FILE_BYTES = 4096;

/** The token in `flag <path>` (or stdin for "-"): one message for a missing, unreadable, oversized or empty file. */
export const readTokenFile = async (ctx: CommandContext, flag: string, path: string): Promise<string> => {
  const token = await readFlagInput(ctx, flag, path, MAX_TOKEN_FILE_BYTES).then(
    (text) => text.trim(),
    () => "",
  );
  // The path is named, never the content.
  if (!token) {
    throw new AppError("INVALID_INPUT", `${flag}: cannot read a token from ${path === "-" ? "stdin" : neutralizeLine(path)}`);
  }
  return token;
};

/** The token a command presents for an agent, where it came from, and what to do when it is refused. */
export interface Credential {
  token: string;
  /** As a user would name it: "RELAY_AGENT_TOKEN", "--token-file /path", "the vault (/path)". */
  source: string;
  hint: string;
}

/** Whose credential a command presents: the agent, and the --token-file given for it (if any). */
export interface CredentialRequest {
  agentId: string;
  tokenFile: string | undefined;
}

/**
 * The credential for an agent: --token-file, then RELAY_AGENT_TOKEN, then the local vault. Never from argv.
 * undefined: no source holds a token (the domain answers "no token").
 */
export const resolveCredential = async (
  ctx: CommandContext,
  { agentId, tokenFile }: CredentialRequest,
): Promise<Credential | undefined> => {
  if (tokenFile !== undefined) {
    return {
      token: await readTokenFile(ctx, "--token-file", tokenFile),
      source: `--token-file ${neutralizeLine(tokenFile)}`,
      hint: `that file holds another agent's token or an outdated one; give the file with ${agentId}'s current token`,
    };
  }
  const fromEnv = ctx.env.RELAY_AGENT_TOKEN?.trim();
  if (fromEnv) {
    return {
      token: fromEnv,
      source: "RELAY_AGENT_TOKEN",
      hint:
        `RELAY_AGENT_TOKEN is set (perhaps for another agent) and wins over the vault: unset it to use ${agentId}'s ` +
        `token from the vault, or pass a file holding ${agentId}'s token with --token-file`,
    };
  }
  const fromVault = await readVaultToken(ctx.paths, agentId);
  if (!fromVault) return undefined;
  return {
    token: fromVault,
    source: `the vault (${ctx.paths.vaultDir}/${agentId}.token)`,
    hint: `the token was rotated or the name registered again elsewhere; pass a file holding ${agentId}'s current token with --token-file, or set RELAY_AGENT_TOKEN`,
  };
};

/** A refused token named by its source (never the token itself); any other error unchanged. */
export const namingTokenSource = (error: unknown, credential: Credential | undefined): unknown => {
  if (!(error instanceof TokenMismatch) || !credential) return error;
  return new AppError("AUTH_FAILED", `the token from ${credential.source} does not match agent ${error.agentName}`, {
    hint: credential.hint,
    details: { token_source: credential.source },
  });
};

/** The usual declaration: the credential of the agent the command acts as (--agent-id, --token-file). */
export const ownCredential = (options: { agentId: string; tokenFile?: string | undefined }): CredentialRequest => ({
  agentId: options.agentId,
  tokenFile: options.tokenFile,
});
