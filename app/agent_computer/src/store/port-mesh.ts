// The mesh side of the store port: agents, sessions, messages and their deliveries.
import type { BroadcastOps } from "./port-broadcast.ts";

export interface AgentRecord {
  agentId: string;
  tokenHash: string;
  role: string | null;
  capabilities: string[];
  agentClass: string;
  description: string | null;
  hostId: string | null;
  authState: "active" | "recovery_pending" | "revoked";
  lastSeq: number;
  createdAt: number;
  updatedAt: number;
  lastSeenAt: number;
}

export interface SessionRecord {
  id: string;
  agentId: string;
  host: string;
  role: string | null;
  repo: string | null;
  caps: string[];
  statusLine: string | null;
  statusSetAt: number | null;
  ttlSeconds: number;
  startedAt: number;
  lastActivityAt: number;
  expiresAt: number;
  watermarkSeq: number;
  endedAt: number | null;
}

/** Which agents the directory lists: by liveness, by their session's fields, by name and description. */
export interface DirectoryFilter {
  /** live: a session within its ttl; stale: none, listed by its latest session; all: both. */
  status: "live" | "stale" | "all";
  role?: string | undefined;
  repo?: string | undefined;
  host?: string | undefined;
  /** Every one of these in the session's caps. */
  capabilities?: readonly string[] | undefined;
  /** The agent name starts with this (exactly, case and all). */
  namePrefix?: string | undefined;
  /** Found, ignoring ASCII case, anywhere in the agent name or its description. */
  query?: string | undefined;
}

export interface DirectoryCounts {
  live: number;
  stale: number;
  /** Of the filter's status, those whose name sorts after the `after` given (all of them without one). */
  after: number;
}

export type DeliveryState = "pending" | "acked" | "expired_undelivered" | "not_checked_in";

export interface NewMessage {
  id: string;
  sender: string;
  kind: "message" | "bounce" | "event";
  body: string;
  threadId: string | null;
  idempotencyKey: string | null;
  /** With an idempotency key: a hash of what was asked (body, recipients, thread), so a reuse of the key for another message is told apart from a retry. */
  idempotencyHash?: string | null;
  /** The message this one answers (agent-send-cli --reply-to); it carries that message's thread. */
  replyTo?: string | null;
  /** The channel this message was posted to (agent-channel-cli post). */
  channel?: string | null;
  createdAt: number;
}

export interface NewDelivery {
  messageId: string;
  recipient: string;
  seq: number;
  state: DeliveryState;
  sessionId: string | null;
}

export interface InboxEntry {
  id: string;
  seq: number;
  sender: string;
  kind: string;
  body: string;
  threadId: string | null;
  replyTo: string | null;
  channel: string | null;
  createdAt: number;
}

/** A message a search found, with the store's own relevance score (higher is better on both stores). */
export interface SearchHit {
  id: string;
  sender: string;
  kind: string;
  body: string;
  threadId: string | null;
  channel: string | null;
  createdAt: number;
  score: number;
}

/** Where a page of search hits ends: the last hit's score, created_at and id (the hits' total order). */
export interface SearchPosition {
  score: number;
  createdAt: number;
  id: string;
}

/** One page of hits and how many hits it starts (itself included), for the count of those left out. */
export interface SearchPage {
  hits: SearchHit[];
  remaining: number;
}

/**
 * How a search finds its matches: "words" walks the word index and keeps the caller's messages, "caller" walks the
 * caller's messages and asks the index about each; "auto" takes the one with fewer rows to visit. Every plan returns
 * the same hits in the same order (test/contract/mesh-search-store.test.ts).
 */
export type SearchPlan = "auto" | "words" | "caller";

/** Who may message an agent: everyone (open), its allow list only (contacts-only), or nobody (closed). */
export type ContactPolicy = "open" | "contacts-only" | "closed";

/** An agent's contact policy and lists; an agent that never set one is open with empty lists. */
export interface ContactSettings {
  policy: ContactPolicy;
  allow: string[];
  block: string[];
  updatedAt: number | null;
}

/** What a reply or a thread read needs of a message the caller may see. */
export interface MessageRef {
  id: string;
  sender: string;
  threadId: string | null;
}

/** A message of a thread as one participant may see it; recipients only for the messages that participant sent. */
export interface ThreadEntry {
  id: string;
  sender: string;
  kind: string;
  body: string;
  threadId: string | null;
  replyTo: string | null;
  createdAt: number;
  recipients: string[] | null;
}

export interface DeliveryRecord {
  messageId: string;
  recipient: string;
  seq: number;
  state: DeliveryState;
  sessionId: string | null;
  ackedAt: number | null;
  closedAt: number | null;
}

export interface SentMessage {
  id: string;
  kind: string;
  body: string;
  threadId: string | null;
  replyTo: string | null;
  createdAt: number;
  /** See NewMessage.idempotencyHash; null for messages sent without a key or stored before hashes were kept. */
  idempotencyHash: string | null;
  deliveries: DeliveryRecord[];
}

/** A sent message as its sender's list shows it: a bounded few of its deliveries and all of them counted. */
export interface SentSummary extends Omit<SentMessage, "deliveries"> {
  /** The first deliveries by recipient, at most the number asked for. */
  recipients: DeliveryRecord[];
  /** Every delivery of the message, counted by state. */
  recipientCounts: Record<DeliveryState, number>;
}

export interface ExpiredDelivery {
  messageId: string;
  sender: string;
  kind: string;
}

/** A recipient's next sequence number, its live session (if any) and its name and host (whose process only its host knows). */
export interface InboxSlot {
  seq: number;
  sessionId: string | undefined;
  holder: Pick<AgentRecord, "agentId" | "hostId">;
}

/** A new message, who it goes to, and the sender's presence writes its transaction owes (MeshRepo.storeMessage). */
export interface MessageToStore {
  message: NewMessage;
  /** Each given the message in its inbox (MeshRepo.deliver's rule); an unknown name gets nothing. */
  recipients: readonly string[];
  /** touch: the sender's agents row is written (last_seen_at); extend: its live session is extended. */
  presence: { agentId: string; touch: boolean; extend: boolean };
  now: number;
}

/** One recipient's part of MessageToStore: its slot (undefined: no such agent) and its endpoints for `message` events. */
export interface StoredDelivery {
  slot: InboxSlot | undefined;
  subscribers: string[];
}

/** What the start of an authenticated mesh call needs, read in one step (see MeshRepo.callerState). */
export interface CallerState {
  tokenHash: string;
  authState: AgentRecord["authState"];
  lastSeenAt: number;
  /** last_activity_at of the caller's open session; undefined when it has none. */
  sessionActivityAt: number | undefined;
  /** expires_at of the caller's open session (it may have run out and not be ended yet); undefined when it has none. */
  sessionExpiresAt: number | undefined;
  /** true when some open session (anyone's) has run out its ttl and is waiting to be ended. */
  expiryDue: boolean;
}

/** A glance at an agent's live session's inbox: how much waits, never what it says. */
export interface InboxGlance {
  sessionId: string;
  count: number;
  /** seq of the newest pending message; null when none waits. */
  newestSeq: number | null;
  /** created_at of the oldest pending message; null when none waits. */
  oldestCreatedAt: number | null;
}

/** Everything the mesh needs from the store, inside one transaction. */
export interface MeshRepo extends BroadcastOps {
  getAgent(agentId: string, lock?: boolean): Promise<AgentRecord | undefined>;
  /** The caller's credentials and presence, and whether expiry is due at `now`; undefined for an unknown name. */
  callerState(agentId: string, now: number): Promise<CallerState | undefined>;
  /**
   * Locks the rows of these agents (the unknown ones are skipped) for the rest of the transaction, in one
   * statement and in name order (byte order), before any of them is written: two transactions that write
   * overlapping sets of agents (A sends to B while B sends to A) then queue instead of deadlocking. SQLite has
   * one writer at a time and needs no row locks.
   */
  lockAgents(agentIds: readonly string[]): Promise<void>;
  touchAgent(agentId: string, now: number): Promise<void>;
  /** Atomically ends open sessions whose ttl ran out; each session is returned to exactly one caller. */
  endExpiredSessions(now: number): Promise<SessionRecord[]>;
  /** Marks the session's pending deliveries expired_undelivered and returns them. */
  expireDeliveries(sessionId: string, now: number): Promise<ExpiredDelivery[]>;
  openSession(agentId: string): Promise<SessionRecord | undefined>;
  insertSession(session: SessionRecord): Promise<void>;
  updateSession(session: SessionRecord): Promise<void>;
  /** Extends the open session of the agent by its own ttl; returns it, or undefined when none is open. */
  renewSession(agentId: string, now: number): Promise<SessionRecord | undefined>;
  /** renewSession for callers that do not need the session back. */
  extendSession(agentId: string, now: number): Promise<void>;
  /**
   * Takes the agent's next inbox sequence number and, in the same step, the id of its open session if that is
   * still live at `now` (the delivery rule). Undefined when no agent has that name: nothing changes.
   */
  takeInboxSlot(agentId: string, now: number): Promise<InboxSlot | undefined>;
  /**
   * takeInboxSlot and the delivery of message `messageId` on that slot, as one step (one statement on
   * PostgreSQL: the recipient's row is held from here to COMMIT, and other senders to it wait that long):
   * pending in the live session, or not_checked_in without one. Undefined when no agent has that name.
   */
  deliver(messageId: string, agentId: string, now: number): Promise<InboxSlot | undefined>;
  insertMessage(message: NewMessage): Promise<void>;
  /** insertMessage, then deliver it to one agent: one statement on PostgreSQL. Undefined when no agent has that name. */
  insertAndDeliver(message: NewMessage, agentId: string, now: number): Promise<InboxSlot | undefined>;
  insertDelivery(delivery: NewDelivery): Promise<void>;
  /**
   * A send's writes: the message, the sender's presence and a delivery to each recipient (as deliver), every
   * agents' row among them taken in the one lock order before any is written, agents' rows before the session's.
   * Answers each recipient's delivery in the order given, with its webhook endpoints that take `message` events.
   */
  storeMessage(toStore: MessageToStore): Promise<StoredDelivery[]>;
  findByIdempotencyKey(sender: string, key: string): Promise<SentMessage | undefined>;
  releaseIdempotencyKey(sender: string, key: string, olderThan: number): Promise<void>;
  /** The session's pending deliveries by seq, those after `afterSeq` (default 0: all), at most `limit`. */
  pending(sessionId: string, limit: number, afterSeq?: number): Promise<InboxEntry[]>;
  /** How many of the session's deliveries are pending, of those after `afterSeq` (default 0: all). */
  countPending(sessionId: string, afterSeq?: number): Promise<number>;
  /** The agent's session live at `now` with its pending count, newest seq and oldest arrival; undefined without one. */
  glanceInbox(agentId: string, now: number): Promise<InboxGlance | undefined>;
  deliveriesOf(recipient: string, messageIds: readonly string[]): Promise<DeliveryRecord[]>;
  ack(recipient: string, messageIds: readonly string[], now: number): Promise<string[]>;
  ackUpToSeq(sessionId: string, seq: number, now: number): Promise<string[]>;
  /** The sender's messages, newest first, at most `limit`; with `before`, only those older than that one. */
  sent(
    sender: string,
    limit: number,
    before: { createdAt: number; id: string } | undefined,
    recipientsShown: number,
  ): Promise<SentSummary[]>;
  /** How many of the sender's messages are older than `before`. */
  countSent(sender: string, before: { createdAt: number; id: string }): Promise<number>;
  /**
   * The message if `agentId` may see it: it sent it, or it was delivered to one of its sessions (pending or
   * acked). Mail stored for an agent that was not checked in, or that expired unread, was never seen: undefined.
   */
  messageSeenBy(messageId: string, agentId: string): Promise<MessageRef | undefined>;
  /** The messages of a thread that `agentId` may see (as messageSeenBy), oldest first (after `after`), at most `limit`. */
  thread(threadId: string, agentId: string, limit: number, after?: { createdAt: number; id: string }): Promise<ThreadEntry[]>;
  /** How many of the thread's messages `agentId` may see that are newer than `after`. */
  countThread(threadId: string, agentId: string, after: { createdAt: number; id: string }): Promise<number>;
  /**
   * Messages `agentId` may see (as messageSeenBy) whose body holds every one of `words` (lowercase runs of letters
   * and digits) as a whole word, best match first (score, then newest, then id), at most `limit`, ranked below `after`
   * when given. `plan` is for tests; callers leave it "auto".
   */
  search(
    agentId: string,
    words: readonly string[],
    limit: number,
    plan?: SearchPlan,
    after?: SearchPosition,
  ): Promise<SearchPage>;
  contactSettings(agentId: string): Promise<ContactSettings>;
  setContactPolicy(agentId: string, policy: ContactPolicy, now: number): Promise<void>;
  /** Lists `other` as allowed or blocked by `owner` (replacing either), or with kind null takes it off both lists. */
  setContact(owner: string, other: string, kind: "allow" | "block" | null, now: number): Promise<void>;
  /** The recipients, of those named, whose contact policy or block list refuses mail from `sender`. */
  refusingRecipients(sender: string, recipients: readonly string[]): Promise<string[]>;
  /**
   * One page of the directory at `now`: the open session of each live agent and the latest session of each stale one
   * (no live session), as `filter` selects, ordered by agent name, after the agent named `page.after`, at most
   * `page.limit` (all without one).
   */
  directory(now: number, filter: DirectoryFilter, page?: { after?: string; limit?: number }): Promise<SessionRecord[]>;
  /** How many agents `filter` (its status aside) selects, live and stale, and how many of its status sort after `after`. */
  directoryCounts(now: number, filter: DirectoryFilter, after?: string): Promise<DirectoryCounts>;
  /** Live agents that `filter` selects, counted per class and host, largest first. */
  directoryTopology(now: number, filter: DirectoryFilter): Promise<{ agentClass: string; host: string; count: number }[]>;
  /** Of each of `hosts`, the filter's agents (its status aside) counted by liveness, in the order given. */
  directoryHostCounts(
    now: number,
    filter: DirectoryFilter,
    hosts: readonly string[],
  ): Promise<{ host: string; live: number; stale: number }[]>;
  liveSessions(now: number): Promise<SessionRecord[]>;
}
