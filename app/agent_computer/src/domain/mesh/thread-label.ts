import type { StoreTx } from "../../store/port.ts";

/** The thread id of the sender's own thread of that label. */
export const ownLabel = (sender: string, label: string): string => `${sender}:${label}`;

/**
 * The thread a --thread label names: a thread the sender already takes part in (it sent or received one of its
 * messages), or else the sender's own thread of that label, "<sender>:<label>". Nobody posts into a thread of others
 * by guessing its label; joining one takes a message of it (--reply-to, or its thread_id once you have one).
 */
export const labelledThread = async (tx: StoreTx, sender: string, label: string): Promise<string> => {
  if (label.startsWith(ownLabel(sender, ""))) return label;
  return (await tx.mesh.thread(label, sender, 1)).length > 0 ? label : ownLabel(sender, label);
};
