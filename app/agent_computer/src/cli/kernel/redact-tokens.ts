// A secret typed where a value was expected (`agent-inbox-cli --agent-id a act_…`, `--token-file act_…`) must not be
// printed back: stderr is pasted into chats, issues and logs. The shapes are in token-shape.ts;
// test/unit/redact-tokens.test.ts mints each kind and checks it is caught here.
import { TOKEN_SHAPE } from "../../token-shape.ts";

export { looksLikeToken } from "../../token-shape.ts";

/** Replaces each token-shaped run by its prefix and "…(redacted)": the reader learns what kind of secret it was. */
export const redactTokens = (text: string): string => text.replace(TOKEN_SHAPE, (_, prefix: string) => `${prefix}…(redacted)`);
