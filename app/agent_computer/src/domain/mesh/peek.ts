import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { Deps } from "../deps.ts";
import { verifyCredentials } from "../identity/authenticate.ts";

export interface PeekInput {
  agentId: string;
  token: string | undefined;
}

/** How much waits in the inbox, never what: hooks print this after every tool call, so it carries no sender text. */
export interface PeekResult {
  agent_id: string;
  session_id: string;
  count: number;
  /** seq of the newest unacknowledged message; null when none waits. */
  newest_seq: number | null;
  /** Seconds since the oldest unacknowledged message arrived; null when none waits. */
  oldest_waiting_s: number | null;
}

/**
 * A read-only look at this session's unacknowledged messages: count, newest seq, oldest age. Same credentials and
 * live-session rule as the inbox read, but one read transaction: it renews no presence and ends no expired session
 * (a session past its ttl is simply not live here either).
 */
export const peekInbox = (deps: Deps, input: PeekInput): Promise<PeekResult> =>
  deps.store.read(async (tx) => {
    const now = deps.now();
    await verifyCredentials(tx, input.agentId, input.token, await tx.mesh.callerState(input.agentId, now));
    const glance = await tx.mesh.glanceInbox(input.agentId, now);
    if (!glance) {
      throw new AppError("NOT_CHECKED_IN", `${input.agentId} has no live check-in, so it has no inbox to peek at`, {
        hint: `check in first: ${commandLine("agent-checkin-cli", "--agent-id", input.agentId, "--confirm")} (see agent-checkin-cli --help)`,
      });
    }
    return {
      agent_id: input.agentId,
      session_id: glance.sessionId,
      count: glance.count,
      newest_seq: glance.newestSeq,
      oldest_waiting_s: glance.oldestCreatedAt === null ? null : Math.max(0, Math.floor((now - glance.oldestCreatedAt) / 1000)),
    };
  });
