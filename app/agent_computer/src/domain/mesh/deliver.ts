import type { InboxSlot, NewMessage, StoreTx } from "../../store/port.ts";
import { iso } from "../deps.ts";
import { enqueueWebhookEvent } from "./webhook-events.ts";

export interface Delivery {
  seq: number;
  /** true: the recipient's live session will show it; false: stored, never delivered (the watermark rule). */
  live: boolean;
  /** What registration recorded about the recipient's process: with `live`, the input of the liveness rule. */
  holder: InboxSlot["holder"];
}

/** What a delivery tells the recipient's webhooks about the message: never its body. */
export type DeliveredMessage = Pick<NewMessage, "id" | "sender" | "kind" | "threadId"> & {
  replyTo?: string | null;
  channel?: string | null;
};

/**
 * Gives a stored message to one recipient: the next sequence number of its inbox, bound to its live session,
 * or marked not_checked_in when it has none. Undefined when no agent has that name: nothing is written.
 * Every message the mesh writes goes through here (a send's through MeshRepo.storeMessage and announceDelivery), and so does the recipient's `message`
 * webhook event (same transaction; the payload names the message, never its body).
 */
export const deliverTo = (
  tx: StoreTx,
  message: DeliveredMessage,
  recipient: string,
  now: number,
): Promise<Delivery | undefined> => delivered(tx, message, recipient, now, tx.mesh.deliver(message.id, recipient, now));

/**
 * The delivery the slot statement made, and the recipient's webhook event. The recipient's endpoints are read
 * right behind that statement, without waiting for its answer (one round trip for both on PostgreSQL); if the
 * statement failed, its failure is the one reported.
 */
const delivered = async (
  tx: StoreTx,
  message: DeliveredMessage,
  recipient: string,
  now: number,
  delivering: Promise<InboxSlot | undefined>,
): Promise<Delivery | undefined> => {
  const subscribers = tx.webhooks.subscribers(recipient, "message");
  subscribers.catch(() => undefined);
  const slot = await delivering;
  if (slot === undefined) {
    await subscribers;
    return undefined;
  }
  return announceDelivery(tx, message, recipient, now, slot, subscribers);
};

/**
 * A delivery the store made (slot), told to the recipient's webhook endpoints that take `message` events: the
 * event is written in the delivering transaction, so it exists exactly when the delivery committed.
 */
export const announceDelivery = async (
  tx: StoreTx,
  message: DeliveredMessage,
  recipient: string,
  now: number,
  slot: InboxSlot,
  subscribers: Promise<string[]>,
): Promise<Delivery> => {
  const { seq, sessionId, holder } = slot;
  const live = sessionId !== undefined;
  await enqueueWebhookEvent(
    tx,
    recipient,
    "message",
    {
      message_id: message.id,
      sender: message.sender,
      kind: message.kind,
      seq,
      thread_id: message.threadId,
      reply_to: message.replyTo ?? null,
      channel: message.channel ?? null,
      created_at: iso(now),
      delivery: live ? "pending" : "not_checked_in",
      read_with: `agent-inbox-cli --agent-id ${recipient}`,
    },
    now,
    subscribers,
  );
  return { seq, live, holder };
};
