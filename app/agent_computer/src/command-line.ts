// Command lines printed for a person (or an agent) to paste into a POSIX shell: hints, `next` lists, console
// pages. Each value is one shell word however it is spelt, so what is pasted is exactly what was meant.

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One shell word: as it is when nothing in it is special to the shell, else single-quoted. */
export const shellWord = (value: string): string => (PLAIN.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`);

/** A command line from its words (binary, flags, values), each quoted as needed. */
export const commandLine = (...words: readonly (string | number)[]): string =>
  words.map((word) => shellWord(String(word))).join(" ");
