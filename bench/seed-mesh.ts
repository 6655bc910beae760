// Fills a store with N delivered-and-acknowledged messages between background agents, in bulk, so the
// benchmarks measure reads and writes against a large store without spending minutes building it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import type { Deps } from "../app/agent_computer/src/domain/deps.ts";
import { newId } from "../app/agent_computer/src/domain/ids.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";

export const depsFor = (store: Store): Deps => ({ store, now: () => Date.now(), host: "bench", newId });

/** Checks in "reader" and "writer" and leaves each one's token in `<dir>/<agent>.token` (0600) for --token-file. */
export const withAgents = async (store: Store, dir: string): Promise<Record<string, string>> => {
  const tokens: Record<string, string> = {};
  for (const agentId of ["reader", "writer"]) {
    const r = await checkIn(depsFor(store), { agentId, token: undefined, ttlSeconds: 86_400 });
    tokens[agentId] = r.agent_token as string;
    writeFileSync(join(dir, `${agentId}.token`), tokens[agentId] as string, { mode: 0o600 });
  }
  return tokens;
};

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
