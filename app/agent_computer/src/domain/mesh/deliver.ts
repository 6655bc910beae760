import type { InboxSlot, NewMessage, StoreTx } from "../../store/port.ts";

export interface Delivery {
  seq: number;
  /** true: the recipient's live session will show it; false: stored, never delivered (the watermark rule). */
  live: boolean;
  /** What registration recorded about the recipient's process: with `live`, the input of the liveness rule. */
  holder: InboxSlot["holder"];
}

/**
 * Gives a stored message to one recipient: the next sequence number of its inbox, bound to its live session,
 * or marked not_checked_in when it has none. Undefined when no agent has that name: nothing is written.
 * Every message the mesh writes goes through here.
 */
export const deliverTo = async (tx: StoreTx, messageId: string, recipient: string, now: number): Promise<Delivery | undefined> =>
  asDelivery(await tx.mesh.deliver(messageId, recipient, now));

/** Stores a new message and gives it to its one recipient, as deliverTo does (one statement on PostgreSQL). */
export const storeAndDeliverTo = async (
  tx: StoreTx,
  message: NewMessage,
  recipient: string,
  now: number,
): Promise<Delivery | undefined> => asDelivery(await tx.mesh.insertAndDeliver(message, recipient, now));

const asDelivery = (slot: InboxSlot | undefined): Delivery | undefined => {
  if (slot === undefined) return undefined;
  const { seq, sessionId, holder } = slot;
  return { seq, live: sessionId !== undefined, holder };
};
