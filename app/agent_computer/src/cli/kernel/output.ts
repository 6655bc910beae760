// Untrusted text (message bodies, script output) is shown only after neutralising terminal control
// sequences, so a message cannot move the cursor, retitle the terminal or hide text from its reader.

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Makes control characters visible (\x1b, \u202e) and keeps newlines and tabs. */
export const neutralize = (text: string): string =>
  text.replace(CONTROL, (ch) => {
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });

/** Single-line variant for table cells and headers: newlines become visible too. */
export const neutralizeLine = (text: string): string => neutralize(text).replace(/\r?\n/g, "\\n").replace(/\t/g, " ");

/** JSON.stringify leaves C1 controls and bidi overrides raw; escape them so piping JSON to a terminal is safe. */
export const toJson = (value: unknown): string =>
  JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

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

/** Writes results to stdout and resolves only once the data has been handed to the OS. */
export const writeStdout = (text: string): Promise<void> => writeFully(Bun.stdout, text);
export const writeStderr = (text: string): Promise<void> => writeFully(Bun.stderr, text);
