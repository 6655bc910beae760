// The one place that writes to stdout and stderr. Human text passes neutralize (terminal-text.ts) here, so no command,
// renderer or error can print a raw control, bidi or zero-width character, whoever wrote the text; --json passes
// safeJson instead (exact values, the same characters as \u escapes), one pass either way. stderr also redacts a token
// typed by mistake (redact-tokens.ts). Renderers use neutralizeLine for one-line fields only, so a newline in a role or a
// path cannot forge a line of a listing.
import { neutralize, safeJson } from "../../terminal-text.ts";
import { fitJson, fitText } from "./output-budget.ts";
import { redactTokens } from "./redact-tokens.ts";

export { neutralize, neutralizeFields, neutralizeLine } from "../../terminal-text.ts";

// Bun.write on Bun.stdout, not process.stdout: touching process.stdout builds a Node WriteStream and
// loads the whole stream machinery, a large share of a short command's start-up. Bun.write resolves
// once every byte was handed to the OS, so output over 64 KiB arrives whole through a pipe.
const writeFully = async (target: typeof Bun.stdout, text: string): Promise<void> => {
  if (text === "") return;
  try {
    await Bun.write(target, text);
  } catch (error) {
    // A reader that went away (`| head`) is not an error of ours.
    if ((error as NodeJS.ErrnoException).code === "EPIPE") process.exit(0);
    throw error;
  }
};

/** Human text on stdout, neutralised; resolves only once the data has been handed to the OS. */
export const writeStdout = (text: string): Promise<void> => writeFully(Bun.stdout, neutralize(text));

/**
 * A command's answer as text, within the output budget (output-budget.ts); `footer` (the paging line) is kept whole
 * after whatever the budget leaves of the body.
 */
export const writeResultText = (text: string, footer: string | undefined, paged: boolean): Promise<void> => {
  const body = neutralize(text.endsWith("\n") ? text.slice(0, -1) : text);
  const tail = footer === undefined ? "" : `${neutralize(footer)}\n`;
  const fitted = body === "" ? "" : `${paged ? body : fitText(body, undefined, Buffer.byteLength(tail))}\n`;
  return writeFully(Bun.stdout, fitted + tail);
};

/** A command's answer as one JSON document, within the output budget unless it paged itself. */
export const writeJsonResult = (value: unknown, paged: boolean): Promise<void> =>
  writeFully(Bun.stdout, paged ? `${safeJson(value, 2)}\n` : fitJson(value));

/** Human text on stderr (errors echo what was typed): neutralised, and a token in it redacted. */
export const writeStderr = (text: string): Promise<void> => writeFully(Bun.stderr, neutralize(redactTokens(text)));

/** The --json error envelope on stderr, on one line, with a typed token redacted. */
export const writeJsonStderr = (value: unknown): Promise<void> => writeFully(Bun.stderr, `${redactTokens(safeJson(value))}\n`);
