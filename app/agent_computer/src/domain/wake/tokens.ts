// Issuing a wake: one transaction that re-checks every store-side rule (session, one outstanding wake, hourly
// cap) right before the token exists, so two watchers racing for one agent cannot both prompt it.

import { UniqueViolation } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { hashWakeToken, mintWakeToken } from "./prompt.ts";
import type { WakeTuning } from "./tuning.ts";

export const HOUR_MS = 3_600_000;

export type WakeStoreDeps = Pick<Deps, "store" | "now" | "newId">;

export type IssueOutcome =
  | { issued: true; tokenId: string; token: string; count: number }
  | { issued: false; reason: "nothing_new" | "outstanding" | "session_ended" }
  | { issued: false; reason: "hourly_cap"; retryAt: number };

export interface IssueInput {
  agentId: string;
  sessionId: string;
  tuning: Pick<WakeTuning, "tokenTtlMs" | "hourlyCap">;
}

const issueOnce = (deps: WakeStoreDeps, input: IssueInput): Promise<IssueOutcome> => {
  const now = deps.now();
  return deps.store.write(async (tx): Promise<IssueOutcome> => {
    const { agentId, sessionId, tuning } = input;
    const open = await tx.mesh.openSession(agentId);
    if (!open || open.id !== sessionId || open.expiresAt <= now) return { issued: false, reason: "session_ended" };
    await tx.wake.closeStaleWakes(agentId, now);
    const backlog = await tx.wake.backlog(sessionId, agentId, now);
    if (backlog.outstanding) return { issued: false, reason: "outstanding" };
    if (backlog.count === 0 || backlog.firstSeq === null || backlog.lastSeq === null)
      return { issued: false, reason: "nothing_new" };
    const since = now - HOUR_MS;
    if ((await tx.wake.countSince(agentId, since)) >= tuning.hourlyCap) {
      const oldest = (await tx.wake.oldestSince(agentId, since)) ?? now;
      return { issued: false, reason: "hourly_cap", retryAt: oldest + HOUR_MS + 1 };
    }
    const token = mintWakeToken();
    const tokenId = deps.newId("wake");
    await tx.wake.insert({
      id: tokenId,
      tokenHash: hashWakeToken(token),
      agentId,
      sessionId,
      firstSeq: backlog.firstSeq,
      lastSeq: backlog.lastSeq,
      messageCount: backlog.count,
      createdAt: now,
      expiresAt: now + tuning.tokenTtlMs,
    });
    return { issued: true, tokenId, token, count: backlog.count };
  });
};

/** A new single-use wake token for the session's unwoken mail, or why none may be issued now. */
export const issueWake = async (deps: WakeStoreDeps, input: IssueInput): Promise<IssueOutcome> => {
  try {
    return await issueOnce(deps, input);
  } catch (error) {
    // Another watcher committed an outstanding wake for this agent between our check and insert.
    if (error instanceof UniqueViolation) return { issued: false, reason: "outstanding" };
    throw error;
  }
};

/** The prompt never reached the pane: the token stops blocking new wakes but still counts against the cap. */
export const failWake = (deps: WakeStoreDeps, tokenId: string): Promise<void> =>
  deps.store.write((tx) => tx.wake.markFailed(tokenId));
