// Python lock rules for the networked bootstrap: only explicitly named requirements.lock files, each a regular file
// (never a symlink) whose bytes are the accepted base commit's, and whose every requirement is pinned with `==` and
// carries SHA-256 hashes. Option lines (-r, -c, -e, --index-url …) are refused: they would pull in files, sources or
// indexes the lock does not name, and uv's --require-hashes then checks the full dependency graph.

export interface LockProblem {
  line: number;
  problem: string;
}

const PINNED = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._,\s-]*\])?\s*===?\s*[A-Za-z0-9.+!_-]+\s*(?:;[^-]*)?$/;
const HASH = /^--hash=([a-z0-9]+):(.*)$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** Logical lines: continuations (`\` at the end) joined, comments dropped; each keeps its first physical line number. */
const logicalLines = (text: string): { line: number; text: string }[] => {
  const out: { line: number; text: string }[] = [];
  let pending: { line: number; text: string } | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const withoutComment = raw.replace(/(^|\s)#.*$/, "");
    const continued = withoutComment.endsWith("\\");
    const part = continued ? withoutComment.slice(0, -1) : withoutComment;
    pending = pending ? { line: pending.line, text: `${pending.text} ${part}` } : { line: index + 1, text: part };
    if (!continued) {
      if (pending.text.trim() !== "") out.push({ line: pending.line, text: pending.text.trim() });
      pending = undefined;
    }
  });
  if (pending && pending.text.trim() !== "") out.push({ line: pending.line, text: pending.text.trim() });
  return out;
};

/** Every problem of a lock's text; an empty list means each requirement is pinned and SHA-256 hashed. */
export const lockProblems = (text: string): LockProblem[] => {
  const problems: LockProblem[] = [];
  const lines = logicalLines(text);
  if (lines.length === 0) return [{ line: 1, problem: "names no requirement" }];
  for (const { line, text: logical } of lines) {
    const words = logical.split(/\s+/);
    const hashes = words.filter((word) => word.startsWith("--hash"));
    const requirement = words.filter((word) => !word.startsWith("--hash")).join(" ");
    if (requirement.startsWith("-")) {
      problems.push({ line, problem: `option lines are not allowed (${requirement.split(" ")[0]})` });
      continue;
    }
    if (!PINNED.test(requirement)) {
      problems.push({ line, problem: "is not a requirement pinned with == (no URLs, paths or ranges)" });
      continue;
    }
    if (hashes.length === 0) {
      problems.push({ line, problem: "has no --hash=sha256:… (every dependency must carry its SHA-256)" });
      continue;
    }
    for (const hash of hashes) {
      const [, algorithm, digest] = HASH.exec(hash) ?? [];
      if (algorithm !== "sha256" || !SHA256.test(digest ?? "")) {
        problems.push({ line, problem: `${hash.slice(0, 80)} is not --hash=sha256:<64 hex digits>` });
      }
    }
  }
  return problems;
};

/** Git tree entry modes: 100644/100755 are regular files, 120000 a symlink, 160000 a submodule. */
export const isRegularFileMode = (mode: string): boolean => mode === "100644" || mode === "100755";
