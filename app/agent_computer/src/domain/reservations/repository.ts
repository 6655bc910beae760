// How a repository is named in the store, so that one repository cloned on several hosts is one:
// - with an origin remote, its URL normalised: scheme, user, port, a trailing ".git" and "/" dropped, the host in
//   lower case (`git@github.com:Org/App.git` and `https://github.com/Org/App` are both `git:github.com/Org/App`);
// - without one, `local:<host>:<path>`, the path being the realpath of the git directory that every worktree of the
//   checkout shares (so its worktrees are one repository, and two hosts' unrelated checkouts are not).
import { GitError } from "../../adapters/git.ts";
import { type RepositoryFacts, repositoryFacts } from "../../adapters/git-paths.ts";
import { AppError } from "../../errors.ts";

export interface Repository {
  key: string;
  topLevel: string;
}

export const normaliseOriginUrl = (url: string): string | null => {
  const trimmed = url
    .trim()
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:]+)(?::\d+)?\/(.+)$/i.exec(trimmed);
  const scpLike = /^(?:[^@/]+@)?([^/:]+):(?!\/)(.+)$/.exec(trimmed);
  const match = withScheme ?? scpLike;
  if (!match || /^file:/i.test(trimmed)) return null;
  return `git:${(match[1] ?? "").toLowerCase()}/${(match[2] ?? "").replace(/^\/+/, "")}`;
};

export const repositoryKey = (facts: RepositoryFacts, host: string): string =>
  (facts.originUrl ? normaliseOriginUrl(facts.originUrl) : null) ?? `local:${host}:${facts.commonDir}`;

/** The repository around `dir`, or INVALID_INPUT naming --repo. */
export const findRepository = async (
  dir: string,
  host: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Repository> => {
  try {
    const facts = await repositoryFacts(dir, env);
    return { key: repositoryKey(facts, host), topLevel: facts.topLevel };
  } catch (error) {
    if (error instanceof GitError && error.kind === "not_a_repository") {
      throw new AppError("INVALID_INPUT", `--repo: ${dir} is not inside a git working tree`, {
        hint: "run it inside the repository, or pass --repo <dir>",
      });
    }
    throw gitFailure(error);
  }
};

/** A git that cannot answer, as the error every command can name (not a stack trace). */
export const gitFailure = (error: unknown): unknown =>
  error instanceof GitError ? new AppError("UNSUPPORTED", `git could not answer: ${error.message}`) : error;
