import type { SessionRecord, StoreTx } from "../../store/port.ts";
import { iso } from "../deps.ts";
import { SYSTEM_SENDER } from "../identity/names.ts";
import { deliverSystemMessage } from "./notify.ts";

/**
 * Ends every session whose ttl ran out, marks its unacknowledged mail expired_undelivered and leaves
 * each affected sender one durable bounce notice, so silence is never mistaken for delivery.
 * Runs at the start of every mesh write; the store hands each expired session to exactly one caller.
 */
export const endExpiredSessions = async (tx: StoreTx, now: number, newId: (prefix: string) => string): Promise<void> => {
  for (const session of await tx.mesh.endExpiredSessions(now)) await bounceUndelivered(tx, session, now, newId);
};

/**
 * After a session ended (expired, taken over, unregistered): its unacknowledged mail becomes
 * expired_undelivered and each registered sender of it gets one bounce notice.
 */
export const bounceUndelivered = async (
  tx: StoreTx,
  session: SessionRecord,
  now: number,
  newId: (prefix: string) => string,
): Promise<void> => {
  const expired = await tx.mesh.expireDeliveries(session.id, now);
  const bySender = new Map<string, string[]>();
  for (const delivery of expired) {
    if (delivery.kind === "bounce" || delivery.sender === SYSTEM_SENDER) continue;
    bySender.set(delivery.sender, [...(bySender.get(delivery.sender) ?? []), delivery.messageId]);
  }
  for (const [sender, messageIds] of [...bySender].sort(([a], [b]) => a.localeCompare(b))) {
    if (!(await tx.mesh.getAgent(sender))) continue;
    await deliverSystemMessage(tx, {
      recipient: sender,
      kind: "bounce",
      body:
        `${messageIds.length} message(s) you sent to ${session.agentId} expired undelivered: its session ` +
        `ended at ${iso(session.endedAt ?? session.expiresAt)} before it acknowledged them. Message ids: ${messageIds.join(", ")}`,
      now,
      newId,
    });
  }
};
