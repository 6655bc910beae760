// Working directories as the OS names them. Herdr reports a pane's cwd as the shell's own directory: no
// trailing slash and, when read from the OS, no symlinks. A path a caller typed (`/wt/pr42/`, a symlinked
// checkout) names the same directory in another spelling, so every comparison resolves both sides first.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

/** The resolved path (symlinks followed) where it exists on this host, else the path normalised (no `..`, no trailing slash). */
export const canonicalDir = (path: string): string => {
  if (path === "") return path;
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

/** Whether two spellings name the same directory; a missing side never matches. */
export const sameDirectory = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a !== "" && b !== "" && canonicalDir(a) === canonicalDir(b);

/** Whether `path` is `root` or lies beneath it, both resolved. */
export const withinDirectory = (path: string | undefined, root: string): boolean => {
  if (path === undefined || path === "") return false;
  const inner = canonicalDir(path);
  const outer = canonicalDir(root);
  return inner === outer || inner.startsWith(outer === "/" ? "/" : `${outer}/`);
};
