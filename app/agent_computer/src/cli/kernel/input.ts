// Every file or stdin input a flag names (--body-file, --data-file, --token-file, --file, …) is read here: with its
// size limit enforced while reading, so `--body-file /dev/zero` stops at the limit instead of filling memory, and
// with one error that names the flag and the file, never the content.
import { AppError } from "../../errors.ts";
import type { CommandContext } from "./command-context.ts";

/** Raised by a context's readInput when the input holds more than the limit. */
export class InputTooLarge extends Error {}

/**
 * Reads "-" (stdin) or a file as UTF-8 (invalid bytes become U+FFFD), failing once more than maxBytes arrive.
 * A file is read as a slice of at most maxBytes + 1 bytes: Bun reads a regular file's range and nothing past it,
 * and a device or pipe (/dev/zero, a FIFO) in growing buffers that stop once the slice is full, so memory stays
 * within twice the limit. node:fs/promises with a read loop did the same for 2 ms more of every command's start-up
 * (the token file is read by most commands).
 */
export const readLimited = async (path: string, maxBytes: number): Promise<string> => {
  if (path !== "-") {
    const bytes = await Bun.file(path)
      .slice(0, maxBytes + 1)
      .bytes();
    if (bytes.byteLength > maxBytes) throw new InputTooLarge();
    return new TextDecoder().decode(bytes);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Uint8Array).byteLength;
    if (size > maxBytes) throw new InputTooLarge();
    chunks.push(chunk as Uint8Array);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
};

/** What `flag <path>` (or `flag -` for stdin) holds, at most maxBytes; INVALID_INPUT naming the flag otherwise. */
export const readFlagInput = async (ctx: CommandContext, flag: string, path: string, maxBytes: number): Promise<string> => {
  const where = path === "-" ? "stdin" : JSON.stringify(path);
  try {
    return await ctx.readInput(path, maxBytes);
  } catch (error) {
    if (error instanceof InputTooLarge)
      throw new AppError("INVALID_INPUT", `${flag}: ${where} holds more than ${maxBytes} bytes`);
    throw new AppError("INVALID_INPUT", `${flag}: cannot read ${where}`);
  }
};
