// What herdr-inspect-cli's commands share: the Herdr reader (never the full adapter) and its errors.
import type { HerdrReader } from "../../adapters/herdr/reader.ts";
import type { ErrorCode } from "../../errors.ts";
import type { CommandContext } from "../kernel/command-context.ts";

export const INSPECT_ENV = ["HERDR_SOCKET_PATH", "HERDR_SESSION", "XDG_CONFIG_HOME"] as const;
export const INSPECT_ERRORS: readonly ErrorCode[] = [
  "INVALID_INPUT",
  "UNAVAILABLE",
  "NOT_FOUND",
  "TIMEOUT",
  "HERDR_REFUSED",
  "INTERNAL",
];

/** The only Herdr access an inspect command gets: a client whose type has no mutating method. */
export const readerFor = async (ctx: CommandContext): Promise<HerdrReader> =>
  (await import("../../adapters/herdr/reader.ts")).createHerdrReader({ env: ctx.env });
