// A secret typed where a value was expected (`agent-inbox-cli --agent-id a act_…`, `--token-file act_…`) must not be
// printed back: stderr is pasted into chats, issues and logs. The shapes are the secrets this project mints (agent
// tokens act_, recovery tokens acr_: domain/identity/token.ts; webhook secrets whsec_: domain/automation/triggers.ts);
// test/unit/redact-tokens.test.ts mints each kind and checks it is caught here.

/** A prefix, then a run of base64/base64url characters long enough to be a secret and not a word or a short name. */
const TOKEN = /(?<![A-Za-z0-9])(act_|acr_|whsec_)[A-Za-z0-9_+/=-]{16,}/g;

/** Replaces each token-shaped run by its prefix and "…(redacted)": the reader learns what kind of secret it was. */
export const redactTokens = (text: string): string => text.replace(TOKEN, (_, prefix: string) => `${prefix}…(redacted)`);

/** Whether a flag value is (or holds) a token itself. */
export const looksLikeToken = (value: string): boolean => redactTokens(value) !== value;
