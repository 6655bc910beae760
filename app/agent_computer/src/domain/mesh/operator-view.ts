// The mesh as its operator sees it (the console): every agent's messages, threads and channels, with no agent's
// token. Only the console calls these, and it opens only for the owner of the state directory (console/access.ts).
// Pages are bounded and walk on with an opaque cursor: the id of the last message shown, encoded.
import { AppError } from "../../errors.ts";
import type { DeliveryState, OverviewChannel, OverviewMessage } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";

export interface MessageView {
  id: string;
  from: string;
  kind: string;
  body: string;
  thread_id: string | null;
  reply_to: string | null;
  channel: string | null;
  created_at: string;
  /** The first recipients by name (the reader's own always among them); recipient_count counts all. */
  recipients: { agent_id: string; state: DeliveryState }[];
  recipient_count: number;
}

export interface MessagePage {
  messages: MessageView[];
  /** Where the next page starts; null on the last page. */
  next_cursor: string | null;
}

export interface ChannelOverview {
  name: string;
  created_by: string;
  created_at: string;
  /** The first members by name; member_count counts all. */
  members: string[];
  member_count: number;
}

const ID_SHAPE = /^[A-Za-z0-9_.:-]{1,200}$/;

export const encodeCursor = (id: string): string => Buffer.from(id, "utf8").toString("base64url");

/** The message id a cursor carries; anything that is not a cursor this page gave out is INVALID_INPUT. */
export const decodeCursor = (cursor: string | undefined): string | undefined => {
  if (cursor === undefined) return undefined;
  const id = /^[A-Za-z0-9_-]{1,300}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  if (!ID_SHAPE.test(id) || encodeCursor(id) !== cursor) {
    throw new AppError("INVALID_INPUT", "cursor: not a cursor this console gave out; start again from the first page");
  }
  return id;
};

const view = (m: OverviewMessage): MessageView => ({
  id: m.id,
  from: m.sender,
  kind: m.kind,
  body: m.body,
  thread_id: m.threadId,
  reply_to: m.replyTo,
  channel: m.channel,
  created_at: iso(m.createdAt),
  recipients: m.recipients.map((r) => ({ agent_id: r.agentId, state: r.state })),
  recipient_count: m.recipientCount,
});

/** One more row than shown tells whether a next page exists. */
const paged = (rows: OverviewMessage[], limit: number): MessagePage => {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { messages: shown.map(view), next_cursor: rows.length > limit && last ? encodeCursor(last.id) : null };
};

/** Every agent's messages, newest first; `reader`'s delivery is named on each row it has one. */
export const messagesOverview = async (
  deps: Deps,
  input: { cursor?: string | undefined; limit: number; reader: string },
): Promise<MessagePage> => {
  const before = decodeCursor(input.cursor);
  return paged(await deps.store.read((tx) => tx.overview.messages(before, input.limit + 1, input.reader)), input.limit);
};

/** One message with its recipients; undefined when there is none of that id. */
export const messageOverview = async (deps: Deps, id: string, reader: string): Promise<MessageView | undefined> => {
  const found = ID_SHAPE.test(id) ? await deps.store.read((tx) => tx.overview.message(id, reader)) : undefined;
  return found ? view(found) : undefined;
};

/** One thread's messages, oldest first (a conversation reads down). */
export const threadOverview = async (
  deps: Deps,
  input: { threadId: string; cursor?: string | undefined; limit: number; reader: string },
): Promise<MessagePage> => {
  if (!ID_SHAPE.test(input.threadId)) throw new AppError("INVALID_INPUT", "id: not a thread or message id");
  const after = decodeCursor(input.cursor);
  const rows = await deps.store.read((tx) => tx.overview.thread(input.threadId, after, input.limit + 1, input.reader));
  return paged(rows, input.limit);
};

const channelView = (c: OverviewChannel): ChannelOverview => ({
  name: c.name,
  created_by: c.createdBy,
  created_at: iso(c.createdAt),
  members: c.members,
  member_count: c.memberCount,
});

/** Channels that have not ended, by name, with their members; `more` when the limit cut the list. */
export const channelsOverview = async (deps: Deps, limit: number): Promise<{ channels: ChannelOverview[]; more: boolean }> => {
  const rows = await deps.store.read((tx) => tx.overview.channels(limit + 1));
  return { channels: rows.slice(0, limit).map(channelView), more: rows.length > limit };
};
