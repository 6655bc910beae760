// The shapes of the secrets this project mints: agent tokens act_ and recovery tokens acr_ (domain/identity/token.ts),
// webhook secrets whsec_ (domain/automation/triggers.ts). A leaf, so that stderr's redaction (cli/kernel) and every
// schema that refuses a secret where none belongs (domain/identity/names.ts, cli/kernel/one-line.ts) read one rule.

/** A prefix, then a run of base64/base64url characters long enough to be a secret and not a word or a short name. */
export const TOKEN_SHAPE = /(?<![A-Za-z0-9])(act_|acr_|whsec_)[A-Za-z0-9_+/=-]{16,}/g;

const ONE_TOKEN = new RegExp(TOKEN_SHAPE.source);

/** Whether a value is (or holds) a token. */
export const looksLikeToken = (value: string): boolean => ONE_TOKEN.test(value);

/** Why a token-shaped value is refused, after the flag's name: the value itself is never repeated. */
export const TOKEN_REFUSAL = "is a token: a secret never belongs here (keep it in its token file)";
