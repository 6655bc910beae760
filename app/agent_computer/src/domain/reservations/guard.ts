// The git guard: the paths a commit or a push touches, against other agents' live exclusive reservations. The
// committing agent is named by its environment (AGENT_COMPUTER_AGENT_ID, as the session hook sets it); its own
// reservations never block it. Advisory: `git commit --no-verify` skips every hook, this one included.

import type { Deps } from "../deps.ts";
import { iso } from "../deps.ts";
import { patternCoversPath } from "./patterns.ts";
import { type Conflict, conflictError, liveIn } from "./reserve.ts";

/** Paths named per conflict in a refusal. */
const SHOWN_PATHS = 5;

export interface GuardResult {
  repo: string;
  agent_id: string | null;
  checked_paths: number;
  allowed: true;
}

export const guardPaths = async (
  deps: Deps,
  input: { repoKey: string; agentId: string | undefined; paths: readonly string[]; action: string },
): Promise<GuardResult> => {
  const live = await deps.store.read((tx) => liveIn(tx, input.repoKey, deps.now()));
  const others = live.filter((r) => r.exclusive && r.holder !== input.agentId);
  const conflicts: Conflict[] = [];
  for (const r of others) {
    const hit = input.paths.filter((path) => r.patterns.some((p) => patternCoversPath(p, path)));
    if (hit.length === 0) continue;
    const patterns = r.patterns.filter((p) => hit.some((path) => patternCoversPath(p, path)));
    const paths = hit.slice(0, SHOWN_PATHS);
    if (hit.length > paths.length) paths.push(`… ${hit.length - paths.length} more`);
    conflicts.push({ holder: r.holder, id: r.id, patterns, exclusive: true, expires_at: iso(r.expiresAt), paths });
  }
  if (conflicts.length > 0) {
    throw conflictError(
      conflicts,
      `${input.action} refused, it touches paths reserved by another agent`,
      "ask the holder (agent-send-cli), wait until it expires, or, knowingly, skip this advisory guard with --no-verify",
    );
  }
  return { repo: input.repoKey, agent_id: input.agentId ?? null, checked_paths: input.paths.length, allowed: true };
};
