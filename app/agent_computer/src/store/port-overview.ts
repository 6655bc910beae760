// The operator's side of the store port: what the console reads across every agent, bounded and newest first.
// No authentication here: the console that calls it opens only for the owner of the state directory.
import type { ChannelRecord } from "./port-channels.ts";
import type { ControllerLeaseRecord, WriterClaimRecord } from "./port-herdr.ts";
import type { DeliveryState } from "./port-mesh.ts";

export interface OverviewMessage {
  id: string;
  sender: string;
  kind: string;
  body: string;
  threadId: string | null;
  replyTo: string | null;
  channel: string | null;
  createdAt: number;
  /** Every recipient with its delivery's state, by name. */
  recipients: { agentId: string; state: DeliveryState }[];
}

export interface OverviewRepo {
  /**
   * Messages newest first (by id: message ids are UUIDv7, so time-ordered, and the primary key walks them), those
   * older than the message `before` when given, at most `limit`.
   */
  messages(before: string | undefined, limit: number): Promise<OverviewMessage[]>;
  /** One message with its recipients. */
  message(id: string): Promise<OverviewMessage | undefined>;
  /** The messages of one thread (its first message and every message naming it), oldest first, after `after`. */
  thread(threadId: string, after: string | undefined, limit: number): Promise<OverviewMessage[]>;
  /** Channels that have not ended, by name, with their members. */
  channels(limit: number): Promise<ChannelRecord[]>;
  /** Controller leases still held (state active), by controller id. */
  controllerLeases(limit: number): Promise<ControllerLeaseRecord[]>;
  /** Writer claims that still hold their branch, worktree and scopes, newest first. */
  heldWriterClaims(limit: number): Promise<WriterClaimRecord[]>;
}
