// The channels side of the store port: named rooms and their members. Posts are messages (port-mesh.ts) with
// their channel named, delivered through the ordinary inbox.

export interface ChannelRecord {
  name: string;
  createdBy: string;
  createdAt: number;
  members: string[];
  /** When it was found with no members: it has ended, and its name is free again some time later. */
  emptiedAt: number | null;
}

/** A post as a channel's history shows it. */
export interface ChannelPost {
  id: string;
  sender: string;
  body: string;
  createdAt: number;
}

export interface ChannelRepo {
  /** false when a channel of that name exists already: nothing changes. */
  createChannel(name: string, createdBy: string, now: number): Promise<boolean>;
  getChannel(name: string): Promise<ChannelRecord | undefined>;
  /** Channels found with no members end at `now`; returns how many. */
  markEmptied(now: number): Promise<number>;
  /** Deletes the channel if it ended at `endedBefore` or earlier, so its name can be taken; whether it did. */
  dropEnded(name: string, endedBefore: number): Promise<boolean>;
  /**
   * The channels `agentId` belongs to, or every channel that has not ended; by name, after the one named
   * `page.after`, at most `page.limit` (all without one).
   */
  listChannels(agentId: string | undefined, page?: { after?: string | undefined; limit?: number }): Promise<ChannelRecord[]>;
  /** How many channels listChannels(agentId) would list after the one named `after` (all without it). */
  countChannels(agentId: string | undefined, after?: string): Promise<number>;
  /** false when the agent was already a member. */
  join(name: string, agentId: string, now: number): Promise<boolean>;
  /** false when the agent was not a member. */
  leave(name: string, agentId: string): Promise<boolean>;
  isMember(name: string, agentId: string): Promise<boolean>;
  /**
   * The most recent posts of the channel of that name since it was created, newest first, at most `limit`; with
   * `before`, only posts older than that one (by created_at, then id).
   */
  posts(name: string, limit: number, before?: { createdAt: number; id: string }): Promise<ChannelPost[]>;
  /** How many of the channel's posts are older than `before`. */
  countPosts(name: string, before: { createdAt: number; id: string }): Promise<number>;
}
