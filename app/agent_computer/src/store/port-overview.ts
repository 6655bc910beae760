// The operator's side of the store port: what the console reads across every agent, bounded and newest first.
// No authentication here: the console that calls it opens only for the owner of the state directory.
import type { ControllerLeaseRecord, WriterClaimRecord } from "./port-herdr.ts";
import type { DeliveryState } from "./port-mesh.ts";

/**
 * Names read per row (a message's recipients, a channel's members), with the count of all: a channel post reaches
 * every member, so a row may name thousands, and a page must stay bounded whatever the store holds.
 */
export const OVERVIEW_NAMES = 50;

export interface OverviewMessage {
  id: string;
  sender: string;
  kind: string;
  body: string;
  threadId: string | null;
  replyTo: string | null;
  channel: string | null;
  createdAt: number;
  /** The first OVERVIEW_NAMES recipients by name with their delivery's state, the reader's own always among them. */
  recipients: { agentId: string; state: DeliveryState }[];
  recipientCount: number;
}

export interface OverviewChannel {
  name: string;
  createdBy: string;
  createdAt: number;
  /** The first OVERVIEW_NAMES members by name. */
  members: string[];
  memberCount: number;
}

export interface OverviewRepo {
  /**
   * Messages newest first (by id: message ids are UUIDv7, so time-ordered, and the primary key walks them), those
   * older than the message `before` when given, at most `limit`. `reader`: the agent whose delivery each row
   * names even past the first OVERVIEW_NAMES recipients (the console's human, who may answer it).
   */
  messages(before: string | undefined, limit: number, reader: string): Promise<OverviewMessage[]>;
  /** One message with its recipients. */
  message(id: string, reader: string): Promise<OverviewMessage | undefined>;
  /** The messages of one thread (its first message and every message naming it), oldest first, after `after`. */
  thread(threadId: string, after: string | undefined, limit: number, reader: string): Promise<OverviewMessage[]>;
  /** Channels that have not ended, by name, with their first members. */
  channels(limit: number): Promise<OverviewChannel[]>;
  /** Controller leases still held (state active), by controller id. */
  controllerLeases(limit: number): Promise<ControllerLeaseRecord[]>;
  /** Writer claims that still hold their branch, worktree and scopes, newest first. */
  heldWriterClaims(limit: number): Promise<WriterClaimRecord[]>;
}
