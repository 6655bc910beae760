import type { StoreTx } from "../../store/port.ts";
import { SYSTEM_SENDER } from "../identity/names.ts";
import { iso } from "./deps.ts";

/**
 * Ends every session whose ttl ran out, marks its unacknowledged mail expired_undelivered and leaves
 * each affected sender one durable bounce notice, so silence is never mistaken for delivery.
 * Runs at the start of every mesh write; the store hands each expired session to exactly one caller.
 */
export const endExpiredSessions = async (tx: StoreTx, now: number, newId: (prefix: string) => string): Promise<void> => {
  for (const session of await tx.mesh.endExpiredSessions(now)) {
    const expired = await tx.mesh.expireDeliveries(session.id, now);
    const bySender = new Map<string, string[]>();
    for (const delivery of expired) {
      if (delivery.kind === "bounce" || delivery.sender === SYSTEM_SENDER) continue;
      bySender.set(delivery.sender, [...(bySender.get(delivery.sender) ?? []), delivery.messageId]);
    }
    for (const [sender, messageIds] of [...bySender].sort(([a], [b]) => a.localeCompare(b))) {
      if (!(await tx.mesh.getAgent(sender))) continue;
      const id = newId("msg");
      await tx.mesh.insertMessage({
        id,
        sender: SYSTEM_SENDER,
        kind: "bounce",
        body:
          `${messageIds.length} message(s) you sent to ${session.agentName} expired undelivered: its session ` +
          `ended at ${iso(session.expiresAt)} before it acknowledged them. Message ids: ${messageIds.join(", ")}`,
        threadId: null,
        idempotencyKey: null,
        createdAt: now,
      });
      const live = await tx.mesh.openSession(sender);
      await tx.mesh.insertDelivery({
        messageId: id,
        recipient: sender,
        seq: await tx.mesh.nextSeq(sender),
        state: live ? "pending" : "not_checked_in",
        sessionId: live?.id ?? null,
      });
    }
  }
};
