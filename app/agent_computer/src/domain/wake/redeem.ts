// agent-inbox-cli --wake-token: uses up the token an auto-wake prompt carried and returns that wake's messages.
import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { InboxEntry, StoreTx, WakeTokenRecord } from "../../store/port.ts";
import { hashWakeToken } from "./prompt.ts";

export interface RedeemedWake {
  /** The wake's still-unacknowledged messages and any newer pending ones, oldest first (limit + 1 read). */
  entries: InboxEntry[];
  wake: { message_count: number; first_seq: number; last_seq: number };
}

const invalid = (why: string, agentId: string): AppError =>
  new AppError("WAKE_TOKEN_INVALID", `the wake token is ${why}; nothing was read`, {
    hint: `read your inbox without --wake-token (${commandLine("agent-inbox-cli", "--agent-id", agentId)}); a wake token works once, for its own session`,
  });

// A token of another agent or session reads as unknown: the answer must not tell whose it is.
const check = (record: WakeTokenRecord | undefined, agentId: string, sessionId: string, now: number): WakeTokenRecord => {
  if (!record || record.agentId !== agentId || record.sessionId !== sessionId)
    throw invalid("unknown to this agent's session", agentId);
  if (record.state === "used") throw invalid("already used", agentId);
  if (record.state !== "outstanding" || record.expiresAt <= now) throw invalid("expired", agentId);
  return record;
};

/**
 * Inside the inbox transaction: validates the token against this agent's live session, marks it used (so the
 * messages it returns never wake the agent again) and returns the wake's messages. Throws WAKE_TOKEN_INVALID
 * (exit 4) for an unknown, used or expired token; the transaction then rolls back and nothing changes.
 */
export const redeemWakeToken = async (
  tx: StoreTx,
  input: { agentId: string; sessionId: string; wakeToken: string; now: number; limit: number },
): Promise<RedeemedWake> => {
  const record = check(await tx.wake.findByHash(hashWakeToken(input.wakeToken)), input.agentId, input.sessionId, input.now);
  const entries = await tx.wake.pendingFrom(input.sessionId, record.firstSeq, input.limit + 1);
  const shown = entries.slice(0, input.limit);
  const seenThrough = Math.max(record.lastSeq, shown.at(-1)?.seq ?? 0);
  await tx.wake.markUsed(record.id, input.now, seenThrough);
  return { entries, wake: { message_count: record.messageCount, first_seq: record.firstSeq, last_seq: record.lastSeq } };
};
