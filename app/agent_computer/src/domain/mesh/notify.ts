import type { NewMessage, StoreTx } from "../../store/port.ts";
import { SYSTEM_SENDER } from "../identity/names.ts";
import { deliverTo } from "./deliver.ts";

export interface SystemMessage {
  recipient: string;
  kind: NewMessage["kind"];
  body: string;
  threadId?: string | null;
  now: number;
  newId(prefix: string): string;
  /** A pre-allocated id, when the caller must record it elsewhere first. */
  messageId?: string;
}

export interface SystemDelivery {
  messageId: string;
  seq: number;
  /** true when the recipient has a live session that will show it; false: stored, never delivered (watermark rule). */
  delivered: boolean;
}

/**
 * Writes a message from the mesh itself (sender agent-computer) to one registered agent, inside the
 * caller's transaction. Delivery follows the mesh rules: only a live session receives it.
 */
export const deliverSystemMessage = async (tx: StoreTx, message: SystemMessage): Promise<SystemDelivery> => {
  const messageId = message.messageId ?? message.newId("msg");
  await tx.mesh.insertMessage({
    id: messageId,
    sender: SYSTEM_SENDER,
    kind: message.kind,
    body: message.body,
    threadId: message.threadId ?? null,
    idempotencyKey: null,
    createdAt: message.now,
  });
  const delivery = await deliverTo(
    tx,
    { id: messageId, sender: SYSTEM_SENDER, kind: message.kind, threadId: message.threadId ?? null },
    message.recipient,
    message.now,
  );
  if (!delivery) throw new Error(`deliverSystemMessage: no agent named ${message.recipient}`);
  return { messageId, seq: delivery.seq, delivered: delivery.live };
};
