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
 * Every message the mesh writes goes through here, and so does the recipient's `message` webhook event (same
 * transaction; the payload names the message, never its body).
 */
export const deliverTo = async (
  tx: StoreTx,
  message: DeliveredMessage,
  recipient: string,
  now: number,
): Promise<Delivery | undefined> => {
  const slot = await tx.mesh.deliver(message.id, recipient, now);
  if (slot === undefined) return undefined;
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
  );
  return { seq, live, holder };
};
