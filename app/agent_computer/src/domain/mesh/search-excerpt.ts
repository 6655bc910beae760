// A search hit shows the part of its body around the first match, not the whole body (up to 64 KiB), so a page of
// hits stays within the output budget; agent-thread-cli --thread <message id> shows the whole message.

/** How many characters of a body a hit shows at most, besides the "…" that mark what was cut. */
export const EXCERPT_CHARS = 300;
/** How much of the excerpt comes before the match, so the match is read in its sentence. */
const LEAD_CHARS = 100;

const isLowSurrogate = (text: string, at: number): boolean => {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff;
};

/** Where the first of `words` (lowercase runs of letters and digits) starts in `body` as a whole word, or 0. */
const firstMatch = (body: string, words: readonly string[]): number => {
  if (words.length === 0) return 0;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join("|")})(?![\\p{L}\\p{N}])`, "iu");
  return pattern.exec(body)?.index ?? 0;
};

/** At most EXCERPT_CHARS of `body` around its first match of `words`, with "…" where it was cut. */
export const excerptOf = (body: string, words: readonly string[]): string => {
  if (body.length <= EXCERPT_CHARS) return body;
  let start = Math.max(0, Math.min(firstMatch(body, words) - LEAD_CHARS, body.length - EXCERPT_CHARS));
  let end = start + EXCERPT_CHARS;
  // Never split a character that takes two UTF-16 units.
  if (start > 0 && isLowSurrogate(body, start)) start++;
  if (end < body.length && isLowSurrogate(body, end)) end--;
  return `${start > 0 ? "…" : ""}${body.slice(start, end)}${end < body.length ? "…" : ""}`;
};
