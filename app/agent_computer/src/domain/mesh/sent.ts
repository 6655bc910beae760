import type { DeliveryState } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { enterMesh, withPresence } from "./live-session.ts";

export interface SentInput {
  agentId: string;
  token: string | undefined;
  limit: number;
  /** Only messages older than this one (the page after one that ended there). */
  before?: { createdAt: number; id: string } | undefined;
}

/** How many recipients a sent message names; recipient_counts counts them all by state. */
export const RECIPIENTS_SHOWN = 10;

export interface SentResult {
  agent_id: string;
  messages: {
    id: string;
    kind: string;
    created_at: string;
    thread_id: string | null;
    reply_to: string | null;
    body_preview: string;
    recipients: { agent_id: string; state: DeliveryState; seq: number; acked_at: string | null; closed_at: string | null }[];
    recipient_counts: Record<DeliveryState, number>;
  }[];
  /** How many of the sender's messages are older than the last one returned. */
  older_messages: number;
  /** Why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

const PREVIEW_CHARS = 80;

/** The sender's view: per message and recipient, pending / acked / expired_undelivered / not_checked_in. */
export const listSent = async (deps: Deps, input: SentInput): Promise<SentResult> => {
  const { value: messages, warning } = await withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId, input.token, false, renew);
    const found = await tx.mesh.sent(input.agentId, input.limit + 1, input.before, RECIPIENTS_SHOWN);
    const page = found.slice(0, input.limit);
    const last = page.at(-1);
    const older = found.length > input.limit && last ? await tx.mesh.countSent(input.agentId, last) : 0;
    return { page, older };
  });
  return {
    agent_id: input.agentId,
    older_messages: messages.older,
    messages: messages.page.map((m) => ({
      id: m.id,
      kind: m.kind,
      created_at: iso(m.createdAt),
      thread_id: m.threadId,
      reply_to: m.replyTo,
      body_preview: m.body.length > PREVIEW_CHARS ? `${m.body.slice(0, PREVIEW_CHARS)}…` : m.body,
      recipient_counts: m.recipientCounts,
      recipients: m.recipients.map((d) => ({
        agent_id: d.recipient,
        state: d.state,
        seq: d.seq,
        acked_at: d.ackedAt === null ? null : iso(d.ackedAt),
        closed_at: d.closedAt === null ? null : iso(d.closedAt),
      })),
    })),
    ...(warning ? { warning } : {}),
  };
};
