import * as z from "zod/mini";
import { commandLine } from "../../command-line.ts";

/**
 * --confirm of a command that previews first: without it the command prints what it would change and changes nothing
 * (exit 0, as agent-checkin-cli does), so a mistyped id or a surprise fan-out is seen before it is acted on.
 */
export const confirmOption = (acts: string) =>
  z._default(z.boolean(), false).check(z.describe(`actually ${acts}; without it only a preview is printed and nothing changes`));

/** The exact line that does what a preview showed: the same words with --confirm added. */
export const confirmCommand = (...words: readonly (string | undefined)[]): string =>
  commandLine(...words.filter((word): word is string => word !== undefined), "--confirm");

/** The first line of a preview's text: nothing changed, and what would. */
export const previewHeadline = (would: string): string => `PREVIEW (nothing changed; add --confirm to act): would ${would}`;
