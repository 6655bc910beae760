import type { BinaryDef } from "../kernel/command.ts";

/** File reservations: leases on path patterns of a repository, and the git guard that honours them. */
const binary: BinaryDef = {
  name: "agent-reserve-cli",
  summary: "file reservations: lease path patterns of a repository, exclusive or shared, with a git guard that honours them",
  description:
    "Several agents editing one repository say which paths they are working on: reserve leases gitignore-style patterns " +
    "(relative to the repository root, always anchored there: `*.md` is the root's, `**/*.md` every one; a pattern also " +
    "covers everything under what it matches, so `src` or `src/` is the whole directory) for --ttl seconds (default " +
    "3600, at most 86400), exclusive (default) or --shared. Two patterns overlap when some path, existing or not yet, " +
    "could match both (case folded); an exclusive reservation overlapping another agent's reservation, or a shared one " +
    "overlapping another's exclusive one, is refused with CONFLICT (exit 4) naming the holders and their expiry; " +
    "nothing is granted. Concurrent reservations of one repository are decided one at a time, on every host: exactly one " +
    "of two overlapping ones wins. Refused patterns: negations (!), character classes ([ ]), backslashes, absolute " +
    "paths, . and .. segments. A released or expired reservation stops counting at once, and an unregistered agent's " +
    "end with it. A Herdr writer lane's owned scopes are exclusive reservations held by herdr-writer:<lease id> until " +
    "the lane is released (herdr-lease-cli writer start --help); the lane's own worktree may commit them.\n" +
    "The repository is its origin URL, normalised (scheme, user, port and .git dropped, host in lower case), so its " +
    "clones on every host sharing the store are one; without an origin, this host's name and the realpath of the git " +
    "directory its worktrees share.\n" +
    "The git guard: git-hook install adds pre-commit and pre-push hooks that refuse a commit or push touching another " +
    "agent's exclusive reservation; the committing agent is AGENT_COMPUTER_AGENT_ID, and its own reservations never " +
    "block it. Advisory: git commit --no-verify skips it. reserve, renew and release act on --agent-id, authenticated " +
    "by its token; list and check read only.",
  subcommands: {
    reserve: () => import("./reserve-reserve.ts").then((m) => m.default),
    renew: () => import("./reserve-renew.ts").then((m) => m.default),
    release: () => import("./reserve-release.ts").then((m) => m.default),
    list: () => import("./reserve-list.ts").then((m) => m.default),
    check: () => import("./reserve-check.ts").then((m) => m.default),
    "git-hook install": () => import("./reserve-git-hook-install.ts").then((m) => m.default),
    "git-hook run": () => import("./reserve-git-hook-run.ts").then((m) => m.default),
  },
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN", "AGENT_COMPUTER_AGENT_ID"],
  examples: [
    "agent-reserve-cli reserve --agent-id builder-1 --path 'src/api/**' --path docs/api.md --reason 'ticket 7'",
    "agent-reserve-cli list",
    "agent-reserve-cli check --path src/api/routes.ts",
    "agent-reserve-cli release --agent-id builder-1",
    "agent-reserve-cli git-hook install",
  ],
};

export default binary;
