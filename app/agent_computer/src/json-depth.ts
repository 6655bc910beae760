// The one nesting limit of every JSON input (--data-file, webhook bodies, emitEvent payloads, Skills' mcp.json).
// JSON.parse itself copes with any depth, but everything after it recurses (JSON.stringify for the store, the
// renderers), so a body nested 50k levels deep would fail later as "Maximum call stack size exceeded". The depth is
// counted by a scan without recursion, before JSON.parse.

/** The deepest nesting of arrays and objects any JSON input may have: `[]` is 1 level, `{"a":[1]}` is 2. */
export const MAX_JSON_DEPTH = 64;

/** Thrown by parseJson for a text nested deeper than its limit; nothing was parsed. */
export class JsonTooDeep extends Error {
  constructor(readonly limit: number) {
    super(`JSON nested deeper than ${limit} levels`);
  }
}

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON value `text` begins with opens more than `limit` arrays or objects at once. Brackets inside
 * strings do not count; the scan ends with the first top-level value, so text after it (which JSON.parse refuses
 * anyway) or a text that is not JSON at all is never reported as too deep.
 */
export const jsonNestedDeeperThan = (text: string, limit: number = MAX_JSON_DEPTH): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (--depth <= 0) return false;
    } else if (depth === 0 && c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
      // A top-level scalar (or not JSON at all): JSON.parse needs no depth for it.
      return false;
    } else if (c === QUOTE) {
      inString = true;
    }
  }
  return false;
};

/** JSON.parse behind the nesting limit: throws JsonTooDeep before parsing, or JSON.parse's SyntaxError. */
export const parseJson = (text: string, limit: number = MAX_JSON_DEPTH): unknown => {
  if (jsonNestedDeeperThan(text, limit)) throw new JsonTooDeep(limit);
  return JSON.parse(text);
};
