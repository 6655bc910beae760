// Reservation patterns and the rule that decides whether two of them conflict.
//
// A pattern is a gitignore-style glob relative to the repository root: `*` matches within one path segment, `?` one
// character of a segment, `**` as a whole segment any number of segments (none included). Unlike .gitignore a pattern
// is always anchored at the root (`*.md` is the root's Markdown files; `**/*.md` every one), and a pattern also covers
// everything under what it matches (`src` and `src/` cover `src/a.ts`), as a directory in .gitignore does. Refused,
// so that no pattern means something other than it seems: negations (`!`), character classes and escapes (`[`, `\`),
// absolute paths, `.` and `..` segments, empty patterns.
//
// Conflict: two patterns conflict when some path could match both, whether or not it exists yet: a reservation guards
// files that are still to be created, so the repository's tracked files are not consulted. Paths compare without case,
// so that two checkouts on case-insensitive file systems (macOS, Windows) cannot hold one file under two spellings.
import { AppError } from "../../errors.ts";

export const MAX_PATTERN_LENGTH = 512;

type Segment = "**" | string;

/** Normalises one pattern or throws INVALID_INPUT naming the flag: the form stored and compared. */
export const normalisePattern = (raw: string, flag = "--path"): string => {
  const refuse = (why: string) => new AppError("INVALID_INPUT", `${flag} ${JSON.stringify(raw)}: ${why}`);
  if (raw.length === 0 || raw.length > MAX_PATTERN_LENGTH) throw refuse(`must be 1 to ${MAX_PATTERN_LENGTH} characters`);
  if (raw.startsWith("!")) throw refuse("negations are not supported: reserve the paths you mean instead");
  if (/[[\]\\]/.test(raw)) throw refuse("character classes and backslashes are not supported; use * and ?");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw refuse("control characters are not allowed");
  if (raw.startsWith("/")) throw refuse("must be relative to the repository root, not absolute");
  // A trailing slash (a directory, in .gitignore) says nothing more here: every pattern covers what lies under it.
  const trimmed = raw.endsWith("/") ? raw.slice(0, -1) : raw;
  if (trimmed.length === 0 || trimmed.includes("//")) throw refuse("has an empty path segment");
  const segments = trimmed.split("/");
  if (segments.some((s) => s === "." || s === "..")) throw refuse(". and .. segments are not allowed");
  if (segments.some((s) => s.includes("**") && s !== "**")) throw refuse("** must be a whole path segment");
  // A trailing ** adds nothing: every pattern already covers what lies under it.
  while (segments.length > 1 && segments.at(-1) === "**" && segments.at(-2) === "**") segments.pop();
  return segments.join("/");
};

const segmentsOf = (pattern: string): Segment[] => [...pattern.toLowerCase().split("/"), "**"];

/**
 * Whether two wildcard sequences can match one common sequence: `star` stands for any run of items (none included),
 * and two other items meet when itemsMeet says so. Memoised over positions, so it is quadratic, never exponential.
 */
const sequencesMeet = <T>(a: readonly T[], b: readonly T[], star: T, itemsMeet: (x: T, y: T) => boolean): boolean => {
  const memo = new Map<number, boolean>();
  const meet = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === star) result = meet(i + 1, j) || (j < b.length && meet(i, j + 1));
    else if (b[j] === star) result = meet(i, j + 1) || (i < a.length && meet(i + 1, j));
    else result = i < a.length && j < b.length && itemsMeet(a[i] as T, b[j] as T) && meet(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return meet(0, 0);
};

/** Whether some nonempty segment matches both segment globs (`*` and `?` within one segment). */
// Both are nonempty patterns, so a common match is a nonempty segment unless both are all stars (still fine: "x").
const segmentsMeet = (a: string, b: string): boolean =>
  sequencesMeet(a.split(""), b.split(""), "*", (x, y) => x === "?" || y === "?" || x === y);

/** Whether some path can match both normalised patterns (each also covering everything under what it matches). */
export const patternsConflict = (left: string, right: string): boolean =>
  sequencesMeet(segmentsOf(left), segmentsOf(right), "**", segmentsMeet);

/** Whether a repository path (as git prints it, relative to the root) is covered by a normalised pattern. */
export const patternCoversPath = (pattern: string, path: string): boolean => {
  const source = segmentsOf(pattern)
    .map((s) =>
      s === "**"
        ? "(?:[^/]+/)*"
        : `${s
            .replace(/[.+^${}()|]/g, "\\$&")
            .replace(/\*/g, "[^/]*")
            .replace(/\?/g, "[^/]")}/`,
    )
    .join("");
  return new RegExp(`^${source}$`, "i").test(`${path}/`);
};
