// One paging convention for the family (docs/cli-contract.md, "Output budget and paging"): `--limit <n>` with a
// default and a maximum per command, and an opaque `--cursor` taken from the previous page. A paged result carries
// `next_cursor` (null on the last page) and `not_shown` (how many matched beyond this page, or null when counting
// them would cost more than the page); the kernel turns those into the text footer, a count and the exact command
// that fetches the next page. A cursor names its command and a fingerprint of the query it was made for, so one
// from another command, or from the same command with other filters, is refused instead of silently skipping rows.
import * as z from "zod/mini";
import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import { safeJson } from "../../terminal-text.ts";
import { OUTPUT_BUDGET_BYTES } from "./output-budget.ts";

/** What a paged result adds to its JSON document. */
export interface Paged {
  next_cursor: string | null;
  not_shown: number | null;
}

/** `--limit`: a whole number from 1 to max, default when not given. */
export const limitSchema = (defaultLimit: number, max: number, what = "entries") =>
  z
    ._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(max)), defaultLimit)
    .check(z.describe(`how many ${what} one page shows (at most ${max})`));

const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/;

/** `--cursor`: the next_cursor of the previous page, as printed; what it holds is checked by decodeCursor. */
export const cursorSchema = z.optional(
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(2048),
      z.regex(CURSOR_TEXT, "must be the next_cursor a previous page printed"),
      z.describe("where the next page starts: the next_cursor of the previous page (from its last line, or --json)"),
    ),
);

/** A short, stable fingerprint of the options that select rows (filters, order), so a cursor stays with its query. */
export const queryFingerprint = (query: Record<string, unknown>): string => {
  const text = JSON.stringify(
    Object.keys(query)
      .sort()
      .map((key) => [key, query[key] ?? null]),
  );
  // FNV-1a, 32 bits: a guard against pasting the wrong cursor, not a secret.
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
};

type Position = readonly (string | number)[];

/** The opaque cursor for the page after `position` (the sort key of the last row shown). */
export const encodeCursor = (command: string, query: Record<string, unknown>, position: Position): string =>
  Buffer.from(JSON.stringify({ c: command, q: queryFingerprint(query), p: position })).toString("base64url");

const refuse = (message: string): never => {
  throw new AppError("INVALID_INPUT", `--cursor: ${message}`, {
    hint: "pass the next_cursor of the previous page of the same command with the same filters, or leave --cursor out to start at the first page",
  });
};

/**
 * The position a cursor holds; INVALID_INPUT naming --cursor if it is malformed, made by another command or for
 * another query, or its position does not have the shape `shape` expects (kinds of each value, in order).
 */
export const decodeCursor = (
  command: string,
  query: Record<string, unknown>,
  cursor: string,
  shape: readonly ("string" | "number")[],
): (string | number)[] => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return refuse("is not a cursor this family printed");
  }
  const { c, q, p } = (decoded ?? {}) as { c?: unknown; q?: unknown; p?: unknown };
  if (typeof c !== "string" || typeof q !== "string" || !Array.isArray(p)) return refuse("is not a cursor this family printed");
  if (c !== command) return refuse(`was printed by ${c}, not ${command}`);
  if (q !== queryFingerprint(query)) return refuse("was printed for other filters; repeat the same filters or start again");
  if (p.length !== shape.length || p.some((value, i) => typeof value !== shape[i])) {
    return refuse("is not a cursor this family printed");
  }
  return p as (string | number)[];
};

/**
 * The page of `rows` (fetched with limit + 1 to learn whether more follow) and its cursor: `position` gives the sort
 * key of a row, `notShown` how many matched beyond this page when the command counted them.
 */
export const pageOf = <Row>(
  rows: readonly Row[],
  limit: number,
  next: (last: Row) => string,
  notShown: number | null = null,
): { rows: Row[]; next_cursor: string | null; not_shown: number | null } => {
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    rows: shown,
    next_cursor: more && last !== undefined ? next(last) : null,
    not_shown: more ? (notShown ?? null) : 0,
  };
};

/** argv with any --cursor (and its value) taken out, so the next command carries the new one instead. */
const withoutCursor = (argv: readonly string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (word === "--cursor") i++;
    else if (!word.startsWith("--cursor=")) out.push(word);
  }
  return out;
};

/** The exact command that fetches the next page: the one that was run, with --cursor set to `cursor`. */
export const nextPageCommand = (binary: string, argv: readonly string[], cursor: string): string => {
  const words = withoutCursor(argv);
  const end = words.indexOf("--");
  const before = end === -1 ? words : words.slice(0, end);
  const after = end === -1 ? [] : words.slice(end);
  return commandLine(binary, ...before, "--cursor", cursor, ...after);
};

/** The last line of a paged text answer, or undefined when nothing was left out. */
export const pagingFooter = (result: unknown, binary: string, argv: readonly string[]): string | undefined => {
  if (typeof result !== "object" || result === null) return undefined;
  const { next_cursor: cursor, not_shown: count } = result as Partial<Paged>;
  if (typeof cursor !== "string") return undefined;
  const how = typeof count === "number" && count > 0 ? `${count} more not shown` : "more not shown";
  return `${how}: ${nextPageCommand(binary, argv, cursor)}`;
};

/** Leaves room under the output budget for the text footer and the fields around a page's list. */
const PAGE_BUDGET_BYTES = OUTPUT_BUDGET_BYTES - 1024;

/**
 * The largest leading part of `rows` (at least one row) whose result, as `build` makes it, fits the output budget as
 * --json (the longer of a page's two forms): a page of long entries holds fewer of them, and its cursor starts the
 * next page right after the last one shown, so the budget never drops an entry between two pages.
 */
export const fitPage = <Row, Result>(rows: readonly Row[], build: (shown: readonly Row[]) => Result): Result => {
  let count = rows.length;
  for (;;) {
    const result = build(rows.slice(0, count));
    const size = Buffer.byteLength(safeJson(result, 2));
    if (size <= PAGE_BUDGET_BYTES || count <= 1) return result;
    count = Math.max(1, Math.min(count - 1, Math.floor((count * PAGE_BUDGET_BYTES) / size)));
  }
};
