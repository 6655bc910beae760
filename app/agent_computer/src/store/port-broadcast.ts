import type { NewMessage } from "./port-mesh.ts";

/** Which live agents a broadcast selects (every filter given must hold); the sender is never among them. */
export interface BroadcastAudience {
  sender: string;
  /** The role of the agent's live session, as the directory shows it. */
  role?: string | undefined;
  /** The repo of the agent's live session, as the directory shows it. */
  repo?: string | undefined;
  /** Capabilities the agent's live session must all have, as the directory shows them. */
  capabilities?: readonly string[] | undefined;
}

/** A broadcast's writes: the message, the sender's presence, and one delivery to each selected agent that accepts it. */
export interface BroadcastToStore {
  message: NewMessage;
  audience: BroadcastAudience;
  /** touch: the sender's agents row is written (last_seen_at); extend: its live session is extended. */
  presence: { agentId: string; touch: boolean; extend: boolean };
  now: number;
}

/** One selected agent's part of a broadcast, in name order. */
export interface BroadcastDelivery {
  agentId: string;
  hostId: string | null;
  /** Its live session, which the delivery went to. */
  sessionId: string;
  /** Null when its contact policy refused the sender: nothing was stored for it. */
  seq: number | null;
  /** Its endpoints that take `message` events (none when refused). */
  subscribers: string[];
}

/** A delivered recipient of one of the sender's messages (MeshRepo.deliveriesPage). */
export interface DeliveryPageEntry {
  agentId: string;
  hostId: string | null;
  seq: number;
  /** Whether the delivery went to a live session (pending or acknowledged), not stored for an absent agent. */
  reached: boolean;
}

/** The set-based writes and reads of a broadcast: a fixed number of statements whatever the number of recipients. */
export interface BroadcastOps {
  /** How many live agents the audience selects at `now`, accepting the sender or not. */
  countAudience(audience: BroadcastAudience, now: number): Promise<number>;
  /**
   * Stores the message and delivers it, in one INSERT … SELECT, to every agent the audience selects whose contact
   * policy accepts the sender (the reach rule's own SQL), each on the next number of its inbox; the agents' rows are
   * taken in the one lock order first. Answers every selected agent, refused ones included, in name order.
   */
  storeBroadcast(toStore: BroadcastToStore): Promise<BroadcastDelivery[]>;
  /**
   * The first `limit` recipients of `sender`'s message `messageId` after name `after` (null: from the first), in name
   * order, and how many recipients follow `after` in all (none: not the sender's message, or no such message).
   */
  deliveriesPage(
    sender: string,
    messageId: string,
    after: string | null,
    limit: number,
  ): Promise<{ entries: DeliveryPageEntry[]; following: number }>;
}
