import { type Deps, iso } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { bounceUndelivered, endExpiredSessions } from "../mesh/expiry.ts";

export interface CheckoutInput {
  agentId: string;
  token: string | undefined;
  /** false: only say what would end, change nothing. */
  confirm: boolean;
}

export interface CheckoutResult {
  agent_id: string;
  /** end_session: the open session ended now; none: there was no open session (already ended or expired). */
  action: "end_session" | "none";
  session_id: string | null;
  ended_at: string | null;
  preview?: true;
}

/**
 * Ends the agent's open session now, as its ttl running out would: it leaves the directory at once, its
 * unacknowledged mail becomes expired_undelivered and each sender gets one bounce notice. The agent stays
 * registered (its token, its tasks); a later check-in starts a new session. Without an open session it changes
 * nothing and says so, so a client's end-of-session hook may run it any number of times.
 */
export const checkOut = (deps: Deps, input: CheckoutInput): Promise<CheckoutResult> => {
  const now = deps.now();
  if (!input.confirm) {
    return deps.store.read(async (tx) => {
      await authenticate(tx, input.agentId, input.token);
      const open = await tx.mesh.openSession(input.agentId);
      const live = open !== undefined && open.expiresAt > now;
      return {
        agent_id: input.agentId,
        action: live ? "end_session" : "none",
        session_id: live ? open.id : null,
        ended_at: null,
        preview: true as const,
      };
    });
  }
  return deps.store.write(async (tx) => {
    await endExpiredSessions(tx, now, deps.newId);
    await authenticate(tx, input.agentId, input.token, { lock: true });
    const open = await tx.mesh.openSession(input.agentId);
    if (open && (await tx.identity.endOpenSession(input.agentId, open.id, now))) {
      await bounceUndelivered(tx, { ...open, endedAt: now }, now, deps.newId);
      return { agent_id: input.agentId, action: "end_session" as const, session_id: open.id, ended_at: iso(now) };
    }
    return { agent_id: input.agentId, action: "none" as const, session_id: null, ended_at: null };
  });
};
