// How a repository is named in the store, so that one repository cloned on several hosts is one:
// - with an origin remote, its URL normalised: scheme, user, port, a trailing ".git" and "/" dropped, the host in
//   lower case (`git@github.com:Org/App.git` and `https://github.com/Org/App` are both `git:github.com/Org/App`);
// - without one, `local:<host>:<path>`, the path being the realpath of the git directory that every worktree of the
//   checkout shares (so its worktrees are one repository, and two hosts' unrelated checkouts are not).
import type { RepositoryFacts } from "../../adapters/git-paths.ts";

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
