// Command lines printed for a person (or an agent) to paste into a POSIX shell: hints, `next` lists, console
// pages. Each value is one shell word however it is spelt, so what is pasted is exactly what was meant.

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

// What a terminal would act on (terminal-text.ts's class) plus newline and tab: such a value is written in $'…'
// quoting with escapes, so the line stays one visible line and still means the exact value when pasted.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const ansiEscape = (ch: string): string => {
  if (ch === "\\" || ch === "'") return `\\${ch}`;
  if (ch === "\n") return "\\n";
  if (ch === "\t") return "\\t";
  if (!INVISIBLE.test(ch)) return ch;
  const code = ch.codePointAt(0) ?? 0;
  // \x is a raw byte in $'…': only ASCII is one byte; C1 and beyond are named by code point (\u, \U) to get UTF-8.
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\U${code.toString(16).padStart(8, "0")}`;
};

/** One shell word: as it is when nothing in it is special to the shell, else single-quoted, or $'…' with escapes. */
export const shellWord = (value: string): string => {
  if (PLAIN.test(value)) return value;
  if (INVISIBLE.test(value)) return `$'${Array.from(value, ansiEscape).join("")}'`;
  return `'${value.replaceAll("'", "'\\''")}'`;
};

/** A command line from its words (binary, flags, values), each quoted as needed. */
export const commandLine = (...words: readonly (string | number)[]): string =>
  words.map((word) => shellWord(String(word))).join(" ");
