// Writer ownership scopes: literal repository-relative paths. No globs, no `..`, nothing absolute: two scopes
// overlap exactly when one is the other or lies beneath it, which is decidable without touching the disk.

const GLOB = /[*?[\]{}!]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_SCOPE_LENGTH = 512;

/** Why a scope is not a literal repo-relative path, or undefined when it is one. */
export const scopeProblem = (scope: string): string | undefined => {
  if (scope === "" || scope.length > MAX_SCOPE_LENGTH) return "must be 1-512 characters";
  if (CONTROL.test(scope)) return "must not contain control characters";
  if (scope.startsWith("/")) return "must be relative to the repository root";
  if (scope.includes("\\")) return "must use / as the separator";
  if (GLOB.test(scope)) return "must be a literal path (no * ? [ ] { } !)";
  const segments = scope.replace(/\/+$/, "").split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    return "must not contain empty, . or .. segments";
  }
  return undefined;
};

/** Trailing slashes carry no meaning for a literal scope. */
export const normalizeScope = (scope: string): string => scope.replace(/\/+$/, "");

export const scopesOverlap = (a: string, b: string): boolean => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

export interface ScopeSet {
  owned: readonly string[];
  blocked: readonly string[];
}

/**
 * The first clash between a new writer and a held one: owned vs owned, and owned vs blocked either way (a
 * blocked scope is one its writer depends on unchanged, so no concurrent writer may own it).
 */
export const scopeClash = (next: ScopeSet, held: ScopeSet): { scope: string; held: string } | undefined => {
  const pairs: Array<[readonly string[], readonly string[]]> = [
    [next.owned, held.owned],
    [next.owned, held.blocked],
    [next.blocked, held.owned],
  ];
  for (const [mine, theirs] of pairs) {
    for (const scope of mine) {
      const other = theirs.find((candidate) => scopesOverlap(scope, candidate));
      if (other !== undefined) return { scope, held: other };
    }
  }
  return undefined;
};
