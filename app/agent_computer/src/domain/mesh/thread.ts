import { AppError } from "../../errors.ts";
import { type Deps, iso } from "../deps.ts";
import { DATA_NOT_INSTRUCTIONS } from "./data-note.ts";
import { enterMesh, withPresence } from "./live-session.ts";
import { ownLabel } from "./thread-label.ts";

export interface ThreadInput {
  agentId: string;
  token: string | undefined;
  /** A thread id, or the id of any message of the thread that the caller may see. */
  thread: string;
  limit: number;
  /** Only messages newer than this one (the page after one that ended there). */
  after?: { createdAt: number; id: string } | undefined;
}

/** How many names a thread's participants and a message's recipients show; the counts have them all. */
export const NAMES_SHOWN = 20;

export interface ThreadMessage {
  id: string;
  from: string;
  /** Only on the messages the caller sent: who they went to (the first NAMES_SHOWN). Others' recipient lists are theirs. */
  to?: string[];
  to_count?: number;
  kind: string;
  reply_to: string | null;
  created_at: string;
  body: string;
}

export interface ThreadResult {
  agent_id: string;
  thread_id: string;
  /** Everyone the caller saw in the thread: the senders of its messages and the recipients of the caller's own. */
  participants: string[];
  participant_count: number;
  messages: ThreadMessage[];
  count: number;
  has_more: boolean;
  /** How many messages of the thread the caller may see follow the last one returned. */
  newer_messages: number;
  note: string;
  /** Why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

/**
 * Every message of a thread that the caller may see (it sent it, or it was delivered to one of its sessions),
 * oldest first. A message id is taken as the thread it belongs to. Like agent-sent-cli, it renews presence and
 * changes no message state.
 */
export const readThread = async (deps: Deps, input: ThreadInput): Promise<ThreadResult> => {
  const { value, warning } = await withPresence(deps, async (tx, renew): Promise<ThreadResult> => {
    await enterMesh(deps, tx, input.agentId, input.token, false, renew);
    const named = await tx.mesh.messageSeenBy(input.thread, input.agentId);
    let threadId = named ? (named.threadId ?? named.id) : input.thread;
    let entries = await tx.mesh.thread(threadId, input.agentId, input.limit + 1, input.after);
    if (entries.length === 0 && !named) {
      // A label the caller gave --thread when sending names its own thread of that label (thread-label.ts).
      threadId = ownLabel(input.agentId, input.thread);
      entries = await tx.mesh.thread(threadId, input.agentId, input.limit + 1, input.after);
    }
    if (entries.length === 0) {
      throw new AppError("NOT_FOUND", `no message of thread ${input.thread} that ${input.agentId} sent or received`, {
        hint: "thread ids appear as thread_id in agent-inbox-cli and agent-sent-cli; mail that was never delivered to you is not yours to read",
      });
    }
    const page = entries.slice(0, input.limit);
    const last = page.at(-1);
    const newer = entries.length > input.limit && last ? await tx.mesh.countThread(threadId, input.agentId, last) : 0;
    const participants = new Set<string>([input.agentId]);
    for (const e of page) {
      participants.add(e.sender);
      for (const r of e.recipients ?? []) participants.add(r);
    }
    return {
      agent_id: input.agentId,
      thread_id: threadId,
      participants: [...participants].sort().slice(0, NAMES_SHOWN),
      participant_count: participants.size,
      messages: page.map((e) => ({
        id: e.id,
        from: e.sender,
        ...(e.recipients ? { to: e.recipients.slice(0, NAMES_SHOWN), to_count: e.recipients.length } : {}),
        kind: e.kind,
        reply_to: e.replyTo,
        created_at: iso(e.createdAt),
        body: e.body,
      })),
      count: page.length,
      has_more: entries.length > input.limit,
      newer_messages: newer,
      note: DATA_NOT_INSTRUCTIONS,
    };
  });
  return warning ? { ...value, warning } : value;
};
