// The channels side of the store port: named rooms and their members. Posts are messages (port-mesh.ts) with
// their channel named, delivered through the ordinary inbox.

export interface ChannelRecord {
  name: string;
  createdBy: string;
  createdAt: number;
  members: string[];
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
  /** The channels `agentId` belongs to, or every channel; by name. */
  listChannels(agentId: string | undefined): Promise<ChannelRecord[]>;
  /** false when the agent was already a member. */
  join(name: string, agentId: string, now: number): Promise<boolean>;
  /** false when the agent was not a member. */
  leave(name: string, agentId: string): Promise<boolean>;
  isMember(name: string, agentId: string): Promise<boolean>;
  /** The channel's most recent posts, at most `limit`, oldest first. */
  posts(name: string, limit: number): Promise<ChannelPost[]>;
}
