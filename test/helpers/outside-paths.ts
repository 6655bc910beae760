// Finds paths in the project's own source that reach outside the repository: a relative path whose `..`
// segments climb above the repo root from the file that names it, or an absolute path into the workplace the
// checkout happens to sit in (/work). A plain clone with nothing beside it must run every test.
// Only code counts: string literals of TS/JS (comments skipped), words of shell scripts, string values of JSON.
// A path built from an expression (`${HERE}/../x`, `$(dirname "$0")/..`) is taken as relative to the file's folder.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";

export interface OutsidePath {
  /** Repo-relative path of the file that names it. */
  file: string;
  path: string;
  reason: string;
}

const EXPRESSION = "<expr>";
const REGEX_AFTER = new Set([..."(,=:[!&|?{};+-*%<>~^"]);
const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "case",
  "in",
  "of",
  "void",
  "yield",
  "await",
  "delete",
  "throw",
  "new",
  "else",
]);

const readQuoted = (source: string, start: number): [string, number] => {
  const quote = source[start];
  let text = "";
  let i = start + 1;
  while (i < source.length && source[i] !== quote) {
    if (source[i] === "\\") i++;
    text += source[i] ?? "";
    i++;
  }
  return [text, i + 1];
};

const skipRegex = (source: string, start: number): number => {
  let inClass = false;
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "\n") return start + 1;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) return i + 1;
  }
  return source.length;
};

/**
 * Collects the string literals of JS/TS code from `start`; stops after the `}` that closes a template's `${`
 * when `inTemplate`. A template's expressions become EXPRESSION; literals passed side by side as arguments
 * (`join(HERE, "..", "..")`) are joined with "/", since that is how they end up as a path.
 */
const scanCode = (source: string, start: number, out: string[], inTemplate: boolean): number => {
  let depth = 0;
  let previous = "";
  let word = "";
  let joinNext = false;
  let lastWasLiteral = false;
  const take = (text: string): void => {
    if (joinNext) out[out.length - 1] += `/${text}`;
    else out.push(text);
    lastWasLiteral = true;
    joinNext = false;
    previous = '"';
  };
  let i = start;
  while (i < source.length) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      i = end < 0 ? source.length : end;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      const [text, end] = readQuoted(source, i);
      take(text);
      i = end;
    } else if (c === "`") {
      let text = "";
      i++;
      while (i < source.length && source[i] !== "`") {
        if (source[i] === "\\") {
          text += source[i + 1] ?? "";
          i += 2;
        } else if (source[i] === "$" && source[i + 1] === "{") {
          i = scanCode(source, i + 2, out, true);
          text += EXPRESSION;
        } else text += source[i++];
      }
      i++;
      take(text);
    } else if (c === "/" && (previous === "" || REGEX_AFTER.has(previous) || (previous === "a" && REGEX_AFTER_WORD.has(word)))) {
      i = skipRegex(source, i);
      previous = "/";
      lastWasLiteral = joinNext = false;
    } else if (/[\w$]/.test(c)) {
      const match = /^[\w$]+/.exec(source.slice(i, i + 64)) as RegExpExecArray;
      word = match[0];
      i += word.length;
      previous = "a";
      lastWasLiteral = joinNext = false;
    } else {
      if (c === "{") depth++;
      if (c === "}" && depth-- === 0 && inTemplate) return i + 1;
      joinNext = c === "," && lastWasLiteral;
      lastWasLiteral = false;
      previous = c;
      i++;
    }
  }
  return i;
};

/** The string literals of JS/TS source, comments skipped. */
export const codeStrings = (source: string): string[] => {
  const out: string[] = [];
  scanCode(source, 0, out, false);
  return out;
};

/** The words of a shell script outside comments, quotes taken off (`"$(dirname "$0")/.."` stays one word). */
export const shellWords = (source: string): string[] =>
  source
    .split("\n")
    .map((line) => line.replace(/(^|\s)#.*$/, ""))
    .join("\n")
    .replace(/\$\(dirname[^)]*\)/g, EXPRESSION)
    .replace(/["']/g, "")
    .split(/[\s;|&<>()]+/)
    .filter(Boolean);

const jsonStrings = (value: unknown): string[] => {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(jsonStrings);
};

const WORKPLACE = /^\/work(\/|$)/;
// A run of `..` segments and what follows it; a `..` glued to a name (`a..b`, `...`) is no segment.
const CLIMB = /(?<![\w.-])((?:\.\.\/)*\.\.)(?![\w.-])((?:\/\S*)?)/g;

/** Why `text`, written in `file` (absolute), names something outside `root`; undefined when it does not. */
export const outsideReason = (text: string, file: string, root: string): string | undefined => {
  if (WORKPLACE.test(text)) return "absolute path into the workplace around the checkout";
  for (const [, climb, rest] of text.matchAll(CLIMB)) {
    const target = resolve(dirname(file), `${climb}${rest}`);
    if (relative(root, target).startsWith("..")) return `climbs above the repository root to ${relative(root, target)}`;
  }
  return undefined;
};

const SHEBANG_SHELL = /^#!.*\b(sh|bash)\b/;

const stringsOf = (file: string): string[] => {
  const source = readFileSync(file, "utf8");
  const extension = extname(file);
  if ([".ts", ".tsx", ".js", ".mjs", ".cjs"].includes(extension)) return codeStrings(source);
  if (extension === ".json") return jsonStrings(JSON.parse(source));
  if (extension === ".sh" || (extension === "" && SHEBANG_SHELL.test(source))) return shellWords(source);
  return [];
};

const filesUnder = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });

/** Every path in the source under `trees` (repo-relative folders) that reaches outside `root`. */
export const outsidePaths = (root: string, trees: readonly string[]): OutsidePath[] =>
  trees.flatMap((tree) =>
    filesUnder(join(root, tree)).flatMap((file) =>
      stringsOf(file).flatMap((text) => {
        const reason = outsideReason(text, file, root);
        return reason ? [{ file: relative(root, file), path: text, reason }] : [];
      }),
    ),
  );
