import type { SessionRecord, StoreTx } from "../../store/port.ts";
import { iso } from "../deps.ts";
import { SYSTEM_SENDER } from "../identity/names.ts";
import { lockAgentsInOrder } from "./lock-order.ts";
import { deliverSystemMessage } from "./notify.ts";

/** One bounce notice owed: the messages one sender sent to a session that ended before they were acknowledged. */
interface Bounce {
  sender: string;
  session: SessionRecord;
  messageIds: string[];
}

/**
 * Ends every session whose ttl ran out, marks its unacknowledged mail expired_undelivered and leaves
 * each affected sender one durable bounce notice, so silence is never mistaken for delivery.
 * Runs at the start of every mesh write; the store hands each expired session to exactly one caller.
 */
export const endExpiredSessions = async (tx: StoreTx, now: number, newId: (prefix: string) => string): Promise<void> => {
  const bounces: Bounce[] = [];
  for (const session of await tx.mesh.endExpiredSessions(now)) bounces.push(...(await expireMail(tx, session, now)));
  await sendBounces(tx, bounces, now, newId);
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
): Promise<void> => sendBounces(tx, await expireMail(tx, session, now), now, newId);

const expireMail = async (tx: StoreTx, session: SessionRecord, now: number): Promise<Bounce[]> => {
  const bySender = new Map<string, string[]>();
  for (const delivery of await tx.mesh.expireDeliveries(session.id, now)) {
    if (delivery.kind === "bounce" || delivery.sender === SYSTEM_SENDER) continue;
    bySender.set(delivery.sender, [...(bySender.get(delivery.sender) ?? []), delivery.messageId]);
  }
  return [...bySender].map(([sender, messageIds]) => ({ sender, session, messageIds }));
};

/** The senders' rows are locked together first (lock-order.ts); the notices go out in sender order. */
const sendBounces = async (tx: StoreTx, bounces: Bounce[], now: number, newId: (prefix: string) => string): Promise<void> => {
  if (bounces.length === 0) return;
  await lockAgentsInOrder(
    tx,
    bounces.map((b) => b.sender),
  );
  const ordered = [...bounces].sort((a, b) => (a.sender < b.sender ? -1 : a.sender > b.sender ? 1 : 0));
  for (const { sender, session, messageIds } of ordered) {
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
