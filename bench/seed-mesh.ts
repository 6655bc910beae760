// Fills a store with N delivered-and-acknowledged messages between background agents, in bulk, so the
// benchmarks measure reads and writes against a large store without spending minutes building it.
import type { Store } from "../app/agent_computer/src/store/port.ts";

export const seedMessages = async (store: Store, count: number, now: number): Promise<void> => {
  const batch = 5000;
  for (let done = 0; done < count; done += batch) {
    const n = Math.min(batch, count - done);
    await store.write(async (tx) => {
      for (let i = 0; i < n; i++) {
        const k = done + i;
        const recipient = `bg-${k % 100}`;
        const id = `msg_${k.toString(16).padStart(32, "0")}`;
        await tx.mesh.insertMessage({
          id,
          sender: `bg-${(k + 1) % 100}`,
          kind: "message",
          body: `background ${k}`,
          threadId: null,
          idempotencyKey: null,
          createdAt: now - 1000,
        });
        await tx.mesh.insertDelivery({ messageId: id, recipient, seq: Math.floor(k / 100) + 1, state: "acked", sessionId: null });
      }
    });
  }
};
