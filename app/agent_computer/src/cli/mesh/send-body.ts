// A message body, as agent-send-cli and agent-channel-cli post take it: --body or --body-file (a file or - for
// stdin), UTF-8 text of at most MAX_BODY_BYTES bytes, never a NUL.
import * as z from "zod/mini";
import { AppError } from "../../errors.ts";
import type { CommandContext } from "../kernel/command-context.ts";
import { readFlagInput } from "../kernel/input.ts";

export const MAX_BODY_BYTES = 65_536;

// A NUL cannot be stored as text by PostgreSQL; refusing it here keeps both stores alike.
const noNul = (text: string): boolean => !text.includes("\0");
const NUL_REFUSED = "must not contain a NUL character (send binary data as base64 or a file path)";

/** The two body flags; a command's own check says that exactly one of them is given. */
export const bodySchemas = {
  body: z
    .optional(z.string().check(z.minLength(1), z.maxLength(MAX_BODY_BYTES), z.refine(noNul, NUL_REFUSED)))
    .check(z.describe(`message text, at most ${MAX_BODY_BYTES} bytes; a NUL character is refused`)),
  bodyFile: z
    .optional(z.string().check(z.minLength(1)))
    .check(z.describe("read the body from this file, or - for stdin: UTF-8 text (invalid bytes read as U+FFFD; NUL refused)")),
};

/** The body a command was given, checked as --body is (zod counts characters; the limit is in bytes). */
export const readBody = async (options: { body?: string | undefined; bodyFile?: string | undefined }, ctx: CommandContext) => {
  if (options.body !== undefined) {
    if (Buffer.byteLength(options.body, "utf8") > MAX_BODY_BYTES)
      throw new AppError("INVALID_INPUT", `--body: at most ${MAX_BODY_BYTES} bytes`);
    return options.body;
  }
  const text = await readFlagInput(ctx, "--body-file", options.bodyFile as string, MAX_BODY_BYTES);
  if (text.length === 0) throw new AppError("INVALID_INPUT", "--body-file: the body is empty");
  if (!noNul(text)) throw new AppError("INVALID_INPUT", `--body-file: the body ${NUL_REFUSED}`);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_BODY_BYTES)
    throw new AppError("INVALID_INPUT", `--body-file: the body is ${bytes} bytes; at most ${MAX_BODY_BYTES}`);
  return text;
};
