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

/** How many items a preview (or the outcome it previews) lists; past it, a count and the command that lists them all. */
export const PREVIEW_LISTED = 20;

/** The first PREVIEW_LISTED items and how many there are in all, so a fan-out of any size prints a bounded list. */
export const listedPart = <T>(items: readonly T[]): { listed: T[]; total: number } => ({
  listed: items.slice(0, PREVIEW_LISTED),
  total: items.length,
});

/** "" when every item was listed, else the line that says how many were left out and which command lists them. */
export const moreLine = (listed: number, total: number, command: string): string[] =>
  total > listed ? [`  … and ${total - listed} more: ${command}`] : [];
