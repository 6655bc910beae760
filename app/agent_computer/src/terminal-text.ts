// Text that came from elsewhere (another agent, a script, a file path, argv, an old store row) reaches a terminal only
// in a form that cannot steer it: every character a terminal or a bidi-aware renderer acts on instead of showing is
// replaced by a visible escape (\x1b, \u202e, \u{e0041}), never dropped, so the reader sees that something was there.
// A leaf: the CLI kernel, the worker's log and the console all use the same class.
//
// The class, by Unicode general category:
//   Cc  C0 controls (ESC, BEL, CR, backspace, …), DEL and C1 controls (U+0080–U+009F, incl. CSI U+009B)
//   Cf  format characters: bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), marks
//       (U+200E, U+200F, U+061C), zero-width characters (U+200B–U+200D, U+2060, U+FEFF), soft hyphen, and the
//       invisible tag characters (U+E0000–U+E007F) that can smuggle text past a reader
//   Zl, Zp  the line and paragraph separators (U+2028, U+2029), which some renderers break lines on

// Newline and tab are taken out of the class itself, not skipped in a callback: a callback for every line would cost
// more than the scan (the CLIs run without JIT).
const UNSAFE_IN_BLOCK = /[[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]--[\n\t]]/gv;
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
// In JSON.stringify output every C0 character is the layout's own: inside strings they are escaped already.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 range is named to take it out of the class
const UNSAFE_IN_JSON = /[[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]--[\u0000-\u001f]]/gv;

const visible = (ch: string): string => {
  const code = ch.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
};

/** Makes every unsafe character visible (\x1b, \u202e) and keeps newlines and tabs: for multi-line blocks. */
export const neutralize = (text: string): string => text.replace(UNSAFE_IN_BLOCK, visible);

/** For one-line fields (a role, a path, a table cell): newlines become a visible \n too, tabs a space. */
export const neutralizeLine = (text: string): string =>
  text.replace(UNSAFE, (ch) => (ch === "\n" ? "\\n" : ch === "\t" ? " " : visible(ch)));

/**
 * A copy of a record in which every string, at any depth, went through neutralizeLine: for showing a record whose
 * fields all came from elsewhere (a Herdr answer), so that no field, including one added later, can be left raw.
 */
export const neutralizeFields = <T>(value: T): T => {
  if (typeof value === "string") return neutralizeLine(value) as T;
  if (Array.isArray(value)) return value.map(neutralizeFields) as T;
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, neutralizeFields(item)])) as T;
};

/**
 * JSON text whose values are exact (a parser reads the same strings) and whose bytes are safe on a terminal.
 * JSON.stringify escapes every C0 control inside a string, so a raw C0 character left in its output is the layout's own
 * newline; the rest of the class can only stand inside a string and is written as \uXXXX (a surrogate pair for a tag
 * character), which a parser reads back as the same character.
 */
export const safeJson = (value: unknown, indent?: number): string =>
  JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (ch) =>
    Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
  );
