import type { InboxEntry, StoreTx } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { type RedeemedWake, redeemWakeToken } from "../wake/redeem.ts";
import { DATA_NOT_INSTRUCTIONS } from "./data-note.ts";
import { enterMesh, withPresence } from "./live-session.ts";

export interface InboxInput {
  agentId: string;
  limit: number;
  token: string | undefined;
  /** The single-use token of an auto-wake prompt: returns that wake's messages and marks the token used. */
  wakeToken?: string | undefined;
  /** Only messages after this seq (a page after the one that ended there). */
  afterSeq?: number | undefined;
}

export interface InboxMessage {
  id: string;
  seq: number;
  from: string;
  kind: string;
  thread_id: string | null;
  /** The message this one answers, when it is a reply. */
  reply_to: string | null;
  /** The channel it was posted to, when it is a channel post. */
  channel: string | null;
  created_at: string;
  body: string;
}

export interface InboxResult {
  agent_id: string;
  session_id: string;
  messages: InboxMessage[];
  count: number;
  has_more: boolean;
  /** With has_more: how many more wait after the last one returned. */
  more_waiting: number;
  /** Present when --wake-token was given: the wake this turn answers. */
  wake?: RedeemedWake["wake"];
  note: string;
  /** Why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

/**
 * This session's unacknowledged messages, oldest first. Reading changes no message state; with a wake token
 * it also uses up that token (and a bad token fails the whole call, changing nothing). Without one, the only
 * write is presence, so a store that cannot take it (disk full, read-only) still answers (withPresence).
 */
export const readInbox = async (deps: Deps, input: InboxInput): Promise<InboxResult> => {
  const read = async (tx: StoreTx, renew: boolean): Promise<InboxResult> => {
    const session = await enterMesh(deps, tx, input.agentId, input.token, true, renew);
    let entries: InboxEntry[];
    let wake: RedeemedWake["wake"] | undefined;
    if (input.wakeToken) {
      const redeemed = await redeemWakeToken(tx, {
        agentId: input.agentId,
        sessionId: session.id,
        wakeToken: input.wakeToken,
        now: deps.now(),
        limit: input.limit,
      });
      entries = redeemed.entries;
      wake = redeemed.wake;
    } else {
      entries = await tx.mesh.pending(session.id, input.limit + 1, input.afterSeq);
    }
    const page = entries.slice(0, input.limit);
    const last = page.at(-1);
    const more = entries.length > input.limit && last ? await tx.mesh.countPending(session.id, last.seq) : 0;
    return {
      agent_id: input.agentId,
      session_id: session.id,
      messages: page.map((e) => ({
        id: e.id,
        seq: e.seq,
        from: e.sender,
        kind: e.kind,
        thread_id: e.threadId,
        reply_to: e.replyTo,
        channel: e.channel,
        created_at: iso(e.createdAt),
        body: e.body,
      })),
      count: page.length,
      has_more: entries.length > input.limit,
      more_waiting: more,
      ...(wake ? { wake } : {}),
      note: DATA_NOT_INSTRUCTIONS,
    };
  };
  // Using up a wake token is a write of its own: without the disk it fails whole, the token stays unused.
  if (input.wakeToken) return deps.store.write((tx) => read(tx, true));
  const { value, warning } = await withPresence(deps, read);
  return warning ? { ...value, warning } : value;
};
