// Where the CLI found the token it presents (a flag's file, an environment variable, the vault), so that a refusal
// can say which source it used and the user can fix that source. Never the token itself: only its origin is shown.
// Process-local: a CLI process presents the tokens of one call; the entries are tokens it already holds.
import { AppError } from "../../errors.ts";

export const TOKEN_SOURCES_HINT =
  "pass the file holding its token with --token-file, set RELAY_AGENT_TOKEN, or keep the token in the vault (written at registration)";

/** A token source as a user would name it, and what to do when its token is refused. */
export interface TokenOrigin {
  /** e.g. "RELAY_AGENT_TOKEN", "--token-file /path", "the vault (/path)". */
  source: string;
  hint: string;
}

const origins = new Map<string, TokenOrigin>();

export const noteTokenOrigin = (token: string, origin: TokenOrigin): void => {
  origins.set(token, origin);
};

/** AUTH_FAILED for a token that is not this agent's, naming where the token came from (never the token). */
export const tokenMismatch = (name: string, token: string): AppError => {
  const origin = origins.get(token);
  return new AppError(
    "AUTH_FAILED",
    origin ? `the token from ${origin.source} does not match agent ${name}` : `the token does not match agent ${name}`,
    { hint: origin?.hint ?? TOKEN_SOURCES_HINT, ...(origin ? { details: { token_source: origin.source } } : {}) },
  );
};
