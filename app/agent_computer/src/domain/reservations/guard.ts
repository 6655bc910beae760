// The git guard: the paths a commit or a push touches, against other agents' live exclusive reservations. The
// committing agent is named by its environment (AGENT_COMPUTER_AGENT_ID, as the session hook sets it); its own
// reservations never block it. Advisory: `git commit --no-verify` skips every hook, this one included.

import { realpathSync } from "node:fs";
import type { ReservationRecord, StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { iso } from "../deps.ts";
import { type Conflict, liveIn } from "./conflicts.ts";
import { patternCoversPath } from "./patterns.ts";
import { conflictError } from "./refusal.ts";
import { writerLeaseOf } from "./writer-lane-holder.ts";

/** Whether the holder is the Herdr writer lane whose worktree, on this host, is the one committing. */
const isOwnLane = async (tx: StoreTx, holder: string, worktree: { hostId: string; path: string }): Promise<boolean> => {
  const leaseId = writerLeaseOf(holder);
  if (leaseId === undefined) return false;
  const claim = await tx.herdr.writerClaim(leaseId);
  return claim !== undefined && claim.hostId === worktree.hostId && samePath(claim.worktree, worktree.path);
};

const samePath = (a: string, b: string): boolean => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
};

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
  input: {
    repoKey: string;
    agentId: string | undefined;
    paths: readonly string[];
    action: string;
    /** The committing checkout: a Herdr writer lane commits in its own worktree without naming itself. */
    worktree: { hostId: string; path: string };
  },
): Promise<GuardResult> => {
  const others = await deps.store.read(async (tx) => {
    const live = (await liveIn(tx, input.repoKey, deps.now())).filter((r) => r.exclusive && r.holder !== input.agentId);
    const kept: ReservationRecord[] = [];
    for (const r of live) if (!(await isOwnLane(tx, r.holder, input.worktree))) kept.push(r);
    return kept;
  });
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
