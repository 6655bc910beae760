// Every file or stdin input a flag names (--body-file, --data-file, --token-file, --file, …) is read here: with its
// size limit enforced while reading, so `--body-file /dev/zero` stops at the limit instead of filling memory, and
// with one error that names the flag and the file, never the content.
import { AppError } from "../../errors.ts";
import type { CommandContext } from "./context.ts";

/** Raised by a context's readInput when the input holds more than the limit. */
export class InputTooLarge extends Error {}

const CHUNK = 65_536;

/** Reads "-" (stdin) or a file as UTF-8 (invalid bytes become U+FFFD), failing once more than maxBytes arrive. */
export const readLimited = async (path: string, maxBytes: number): Promise<string> => {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const take = (chunk: Uint8Array) => {
    size += chunk.byteLength;
    if (size > maxBytes) throw new InputTooLarge();
    chunks.push(chunk);
  };
  if (path === "-") {
    for await (const chunk of process.stdin) take(chunk as Uint8Array);
  } else {
    const { open } = await import("node:fs/promises");
    const file = await open(path, "r");
    try {
      for (;;) {
        const { bytesRead, buffer } = await file.read(new Uint8Array(CHUNK), 0, CHUNK);
        if (bytesRead === 0) break;
        take(buffer.subarray(0, bytesRead));
      }
    } finally {
      await file.close();
    }
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
