// --token-file for the commands that may register (register-agent-cli, agent-checkin-cli --confirm): a file that
// holds a token authenticates as everywhere else; a missing or empty one receives the token a first registration
// mints, instead of the token being printed.
import { AppError, isAppError } from "../../errors.ts";
import { neutralizeLine } from "../../terminal-text.ts";
import type { CommandContext } from "./command-context.ts";
import { MAX_TOKEN_FILE_BYTES, namingTokenSource, resolveCredential } from "./credential.ts";
import { InputTooLarge } from "./input.ts";

export const FIRST_TOKEN_FILE_DOC =
  "token file (else RELAY_AGENT_TOKEN, the vault); if missing/empty, a new name's token goes there (0600, no symlink/overwrite)";

const unreadable = (path: string, why?: string): AppError =>
  new AppError("INVALID_INPUT", `--token-file: cannot read a token from ${neutralizeLine(path)}${why ? ` (${why})` : ""}`);

/** The token a file holds; undefined for a missing or empty file (which can take a new one). */
const readToken = async (ctx: CommandContext, path: string): Promise<string | undefined> => {
  try {
    return (await ctx.readInput(path, MAX_TOKEN_FILE_BYTES)).trim() || undefined;
  } catch (error) {
    if (error instanceof InputTooLarge) throw unreadable(path, `it holds more than ${MAX_TOKEN_FILE_BYTES} bytes`);
    return undefined;
  }
};

/**
 * Runs a call that may register `agentId`. With a --token-file that holds no token the file is claimed first;
 * when the call mints a token it is written there and left out of the result (token_file names where it went).
 */
export const withFirstTokenFile = async <R extends { agent_token?: string; auth_note?: string }>(
  ctx: CommandContext,
  agentId: string,
  tokenFile: string | undefined,
  call: (token: string | undefined) => Promise<R>,
): Promise<R & { token_file?: string }> => {
  // stdin cannot take a new token: "-" must hold one, as everywhere else; so is a file that holds a token.
  if (tokenFile === undefined || tokenFile === "-" || (await readToken(ctx, tokenFile)) !== undefined) {
    const credential = await resolveCredential(ctx, { agentId, tokenFile });
    return call(credential?.token).catch((error: unknown) => {
      throw namingTokenSource(error, credential);
    });
  }
  const { claimTokenFile } = await import("../../local/token-file.ts");
  const claim = claimTokenFile(tokenFile);
  if ("refused" in claim) throw unreadable(tokenFile, `and it cannot take a new token: ${claim.refused}`);
  let result: R;
  try {
    result = await call(undefined);
  } catch (error) {
    claim.release();
    // A known name with nothing in the file: the file was meant to authenticate, as before.
    if (isAppError(error) && error.code === "AUTH_FAILED") throw unreadable(tokenFile);
    throw error;
  }
  if (result.agent_token === undefined) {
    claim.release();
    return result;
  }
  if (!claim.fill(result.agent_token)) return result;
  const { agent_token: _written, auth_note: _note, ...rest } = result;
  return { ...(rest as R), token_file: tokenFile };
};
