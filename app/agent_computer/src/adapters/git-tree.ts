// Writes a commit's tree into an empty directory straight from Git's objects: `git ls-tree -r -z` for the entries and
// one `git cat-file --batch` for the blob bytes. Neither reads .gitattributes, so export-ignore, export-subst, eol/text
// and filter drivers (whose commands come from config) never apply: every file is the blob byte for byte, with the
// tree's executable bit, symlinks as symlinks and a submodule (gitlink) as an empty directory, as a checkout leaves it.
// Paths stay bytes (a name need not be UTF-8) and a name git would not check out (.., ., .git, empty) is refused, so
// nothing is written outside the directory.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import type { execa } from "execa";

export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  /** The path's bytes, relative to the tree's root. */
  path: Buffer;
}

const FILE_MODES: Record<string, number> = { "100644": 0o644, "100755": 0o755 };
const SYMLINK = "120000";
const GITLINK = "160000";
const SLASH = 0x2f;

/** Parses `git ls-tree -r -z --full-tree` output: `<mode> SP <type> SP <oid> TAB <path> NUL` per entry. */
export const parseTreeListing = (listing: Buffer): TreeEntry[] => {
  const entries: TreeEntry[] = [];
  let start = 0;
  while (start < listing.length) {
    const end = listing.indexOf(0, start);
    if (end < 0) throw new Error("git ls-tree output ended inside an entry");
    const tab = listing.indexOf(0x09, start);
    if (tab < 0 || tab > end) throw new Error("git ls-tree printed an entry without a path");
    const [mode = "", type = "", oid = ""] = listing.subarray(start, tab).toString("latin1").split(" ");
    entries.push({ mode, type, oid, path: Buffer.from(listing.subarray(tab + 1, end)) });
    start = end + 1;
  }
  return entries;
};

/** Why git itself would refuse to check this path out, or null. Compared case-insensitively like core.protectNTFS. */
export const unsafeTreePath = (path: Buffer): string | null => {
  const parts = path.toString("latin1").split("/");
  for (const part of parts) {
    if (part === "" || part === "." || part === "..") return "has an empty, . or .. component";
    if (part.toLowerCase() === ".git") return "has a .git component";
  }
  return null;
};

const under = (root: string, relative: Buffer) => Buffer.concat([Buffer.from(`${root}/`), relative]);

/** Creates every parent of `path` once; mkdir (never recursive) fails on anything already there, a symlink included. */
const makeParents = (root: string, path: Buffer, made: Set<string>) => {
  let slash = path.indexOf(SLASH);
  while (slash >= 0) {
    const dir = path.subarray(0, slash);
    const key = dir.toString("latin1");
    if (!made.has(key)) {
      mkdirSync(under(root, dir), { mode: 0o755 });
      made.add(key);
    }
    slash = path.indexOf(SLASH, slash + 1);
  }
};

const writeEntry = (root: string, entry: TreeEntry, bytes: Buffer) => {
  const target = under(root, entry.path);
  if (entry.mode === SYMLINK) {
    symlinkSync(bytes, target);
    return;
  }
  // wx: a path that already exists (written twice, or a symlink) is an error, never followed.
  writeFileSync(target, bytes, { flag: "wx", mode: FILE_MODES[entry.mode] });
  chmodSync(target, FILE_MODES[entry.mode] as number);
};

/**
 * Streams blob contents out of `git cat-file --batch` in the order asked: `<oid> blob <size> LF <bytes> LF` each.
 * Calls `onBlob` for each, synchronously, as soon as its bytes are in.
 */
const readBlobs = async (
  git: (args: readonly string[], input: string) => ReturnType<typeof execa>,
  oids: readonly string[],
  onBlob: (oid: string, bytes: Buffer) => void,
) => {
  const child = git(["cat-file", "--batch"], oids.map((oid) => `${oid}\n`).join(""));
  // Chunks are joined once per blob, not once per chunk: a large blob arrives in many chunks.
  let chunks: Buffer[] = [];
  let buffered = 0;
  let next = 0;
  let want: { oid: string; size: number } | null = null;
  let failure: Error | null = null;
  const joined = (): Buffer => (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, buffered));
  const keep = (rest: Buffer) => {
    chunks = rest.length > 0 ? [rest] : [];
    buffered = rest.length;
  };
  const consume = () => {
    for (;;) {
      if (!want) {
        if (buffered === 0) return;
        const all = joined();
        const lf = all.indexOf(0x0a);
        if (lf < 0) {
          keep(all);
          return;
        }
        const [oid = "", type = "", size = ""] = all.subarray(0, lf).toString("latin1").split(" ");
        if (oid !== oids[next] || type !== "blob" || !/^\d+$/.test(size)) {
          throw new Error(`git cat-file did not return blob ${oids[next]} (${type || "missing"})`);
        }
        want = { oid, size: Number(size) };
        keep(all.subarray(lf + 1));
      }
      if (buffered < want.size + 1) return;
      const all = joined();
      onBlob(want.oid, all.subarray(0, want.size));
      keep(all.subarray(want.size + 1));
      want = null;
      next += 1;
    }
  };
  child.stdout?.on("data", (chunk: Buffer) => {
    if (failure) return;
    chunks.push(chunk);
    buffered += chunk.length;
    try {
      consume();
    } catch (error) {
      failure = error as Error;
      child.kill("SIGKILL");
    }
  });
  const result = await child;
  if (failure) throw failure;
  if (result.timedOut) throw new Error("git cat-file did not finish in time");
  if (result.exitCode !== 0 || next !== oids.length) throw new Error("git cat-file --batch failed");
};

/**
 * Writes the tree of `commit` into `into` (an existing empty directory). `git` runs a git command in the repository
 * with the given stdin and buffer: false for the listing's consumer to stream.
 */
export const writeCommitTree = async (
  listing: Buffer,
  into: string,
  git: (args: readonly string[], input: string) => ReturnType<typeof execa>,
): Promise<void> => {
  const entries = parseTreeListing(listing);
  const byBlob = new Map<string, TreeEntry[]>();
  const made = new Set<string>();
  for (const entry of entries) {
    const unsafe = unsafeTreePath(entry.path);
    if (unsafe) throw new Error(`the commit's tree has a path git would not check out (it ${unsafe})`);
    makeParents(into, entry.path, made);
    if (entry.mode === GITLINK && entry.type === "commit") {
      mkdirSync(under(into, entry.path), { mode: 0o755 });
      made.add(entry.path.toString("latin1"));
    } else if (entry.type === "blob" && (entry.mode === SYMLINK || FILE_MODES[entry.mode] !== undefined)) {
      byBlob.set(entry.oid, [...(byBlob.get(entry.oid) ?? []), entry]);
    } else {
      throw new Error(`the commit's tree has an entry of mode ${entry.mode} (${entry.type}) that no checkout writes`);
    }
  }
  await readBlobs(git, [...byBlob.keys()], (oid, bytes) => {
    for (const entry of byBlob.get(oid) ?? []) writeEntry(into, entry, bytes);
  });
};
