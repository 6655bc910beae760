import { AppError } from "../../errors.ts";
import type { SentMessage, StoreTx } from "../../store/port.ts";
import { UniqueViolation } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { takeRateSlots } from "../identity/rate-limit.ts";
import { deliverTo } from "./deliver.ts";
import { enterMesh } from "./live-session.ts";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type RecipientSelector =
  | { kind: "to"; agentIds: string[] }
  | { kind: "broadcast"; role?: string | undefined; repo?: string | undefined };

export interface SendInput {
  from: string;
  token: string | undefined;
  recipients: RecipientSelector;
  body: string;
  threadId?: string | undefined;
  idempotencyKey?: string | undefined;
}

export type RecipientOutcome = "live" | "not_checked_in" | "unknown_agent";

export interface SendResult {
  id: string;
  from: string;
  created_at: string;
  thread_id: string | null;
  replayed: boolean;
  recipients: { agent_id: string; outcome: RecipientOutcome; seq: number | null }[];
}

const replayResult = (from: string, original: SentMessage): SendResult => ({
  id: original.id,
  from,
  created_at: iso(original.createdAt),
  thread_id: original.threadId,
  replayed: true,
  recipients: original.deliveries.map((d) => ({
    agent_id: d.recipient,
    outcome: d.sessionId ? "live" : "not_checked_in",
    seq: d.seq,
  })),
});

/** Each named recipient once, in name order (one name, the common case, needs neither). */
const uniqueSorted = (names: string[]): string[] => (names.length === 1 ? names : [...new Set(names)].sort());

const broadcastRecipients = async (
  deps: Deps,
  tx: StoreTx,
  from: string,
  { role, repo }: { role?: string | undefined; repo?: string | undefined },
): Promise<string[]> => {
  const live = await tx.mesh.liveSessions(deps.now);
  return live
    .filter((s) => s.agentName !== from && (!role || s.role === role) && (!repo || s.repo === repo))
    .map((s) => s.agentName);
};

const sendOnce = (deps: Deps, input: SendInput): Promise<SendResult> =>
  deps.store.write(async (tx) => {
    await enterMesh(deps, tx, input.from, input.token, false);
    const key = input.idempotencyKey ?? null;
    if (key) {
      await tx.mesh.releaseIdempotencyKey(input.from, key, deps.now - IDEMPOTENCY_WINDOW_MS);
      const original = await tx.mesh.findByIdempotencyKey(input.from, key);
      if (original) return replayResult(input.from, original);
    }
    // A replay above sends nothing, so only new messages count against the sender's and the host's limits.
    await takeRateSlots(tx, deps.limits, "send", { name: input.from, host: deps.local?.hostId ?? deps.host }, deps.now);
    const names =
      input.recipients.kind === "to"
        ? uniqueSorted(input.recipients.agentIds)
        : await broadcastRecipients(deps, tx, input.from, input.recipients);
    if (names.length === 0) {
      throw new AppError("NOT_FOUND", "no live agent matches the broadcast filters; nothing was sent", {
        hint: "agents-list-cli shows who is live",
      });
    }
    const id = deps.newId("msg");
    await tx.mesh.insertMessage({
      id,
      sender: input.from,
      kind: "message",
      body: input.body,
      threadId: input.threadId ?? null,
      idempotencyKey: key,
      createdAt: deps.now,
    });
    const recipients: SendResult["recipients"] = [];
    for (const name of names) {
      const delivery = await deliverTo(tx, id, name, deps.now);
      recipients.push(
        delivery
          ? { agent_id: name, outcome: delivery.live ? "live" : "not_checked_in", seq: delivery.seq }
          : { agent_id: name, outcome: "unknown_agent", seq: null },
      );
    }
    if (recipients.every((r) => r.outcome === "unknown_agent")) {
      throw new AppError("UNKNOWN_AGENT", `no registered agent named ${names.join(", ")}; nothing was sent`, {
        hint: "agents-list-cli --include-stale lists the registered names",
      });
    }
    return { id, from: input.from, created_at: iso(deps.now), thread_id: input.threadId ?? null, replayed: false, recipients };
  });

/**
 * Stores one message for each recipient and tells the truth about each: live (it will see this),
 * not_checked_in (stored, never delivered) or unknown_agent (rejected). A concurrent retry with the
 * same idempotency key loses the unique index race and re-reads the original.
 */
export const sendMessage = async (deps: Deps, input: SendInput): Promise<SendResult> => {
  try {
    return await sendOnce(deps, input);
  } catch (error) {
    if (error instanceof UniqueViolation && input.idempotencyKey) return sendOnce(deps, input);
    throw error;
  }
};
