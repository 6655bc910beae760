// Nothing reaches stdout or stderr without passing neutralize (terminal-text.ts): the writers below apply it, so no
// command, renderer or error can print a raw control, bidi or zero-width character, whoever wrote the text. Renderers
// still use neutralizeLine for one-line fields, so a newline in a role or a path cannot forge a line of a listing.
// JSON is built with safeJson, whose output neutralize leaves as it is.
import { neutralize, safeJson } from "../../terminal-text.ts";

import { redactTokens } from "./redact-tokens.ts";

export { neutralize, neutralizeLine } from "../../terminal-text.ts";

/**
 * --json output: the exact values (a JSON parser reads back every string as stored) in bytes that are safe to print,
 * because JSON piped to a terminal is still read there; C1, bidi, zero-width and separators are \u escapes.
 */
export const toJson = (value: unknown, indent = 2): string => safeJson(value, indent);

// Bun.write on Bun.stdout, not process.stdout: touching process.stdout builds a Node WriteStream and
// loads the whole stream machinery, a large share of a short command's start-up. Bun.write resolves
// once every byte was handed to the OS, so output over 64 KiB arrives whole through a pipe.
const writeFully = async (target: typeof Bun.stdout, text: string): Promise<void> => {
  if (text === "") return;
  try {
    await Bun.write(target, neutralize(text));
  } catch (error) {
    // A reader that went away (`| head`) is not an error of ours.
    if ((error as NodeJS.ErrnoException).code === "EPIPE") process.exit(0);
    throw error;
  }
};

/** Writes results to stdout, neutralised, and resolves only once the data has been handed to the OS. */
export const writeStdout = (text: string): Promise<void> => writeFully(Bun.stdout, text);
/** stderr carries errors, which echo what was typed: a token typed by mistake is redacted there (redact-tokens.ts). */
export const writeStderr = (text: string): Promise<void> => writeFully(Bun.stderr, redactTokens(text));
