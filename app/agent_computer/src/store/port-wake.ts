// The store port of auto-wake: wake tokens and the cheap per-session query a wake watcher polls.
// Nothing here holds a Herdr pane id or any other host-local value (those stay in the state directory).
import type { InboxEntry } from "./port-mesh.ts";

export type WakeTokenState = "outstanding" | "used" | "expired" | "settled" | "failed";

export interface WakeTokenRecord {
  id: string;
  agentId: string;
  sessionId: string;
  /** The wake covers the session's deliveries with first_seq <= seq <= last_seq (the messages that triggered it). */
  firstSeq: number;
  lastSeq: number;
  messageCount: number;
  /** Wake-eligible deliveries at or below this seq never trigger another wake of the session. */
  cursorSeq: number;
  state: WakeTokenState;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface NewWakeToken {
  id: string;
  tokenHash: string;
  agentId: string;
  sessionId: string;
  firstSeq: number;
  lastSeq: number;
  messageCount: number;
  createdAt: number;
  expiresAt: number;
}

/** What a watcher needs to decide about one armed session, read in one snapshot. */
export interface WakeBacklog {
  /** The session row: null when it no longer exists. */
  session: { host: string; endedAt: number | null; expiresAt: number } | null;
  /** Wake-eligible pending deliveries above the session's wake cursor. */
  count: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** When the oldest of them was sent (the sender's clock). */
  firstCreatedAt: number | null;
  /** An unexpired outstanding wake whose messages are still (partly) unacknowledged. */
  outstanding: boolean;
}

/** Everything auto-wake needs from the store, inside one transaction. */
export interface WakeRepo {
  /**
   * The poll query. Eligible deliveries: pending in this session, kind message or event (never bounce),
   * not sent by the agent itself, above the highest cursor of a used or unexpired outstanding wake.
   */
  backlog(sessionId: string, agentId: string, now: number): Promise<WakeBacklog>;
  /** Closes this agent's outstanding wakes that ran out (expired) or whose messages were all acked (settled). */
  closeStaleWakes(agentId: string, now: number): Promise<void>;
  /** Wakes issued to the agent since `since` (every state counts: the hourly cap is about prompts sent). */
  countSince(agentId: string, since: number): Promise<number>;
  /** The oldest issue time among the agent's wakes since `since`, for when the hourly cap frees a slot. */
  oldestSince(agentId: string, since: number): Promise<number | null>;
  /** Throws UniqueViolation when the agent already has an outstanding wake. */
  insert(token: NewWakeToken): Promise<void>;
  /** Locks the row on PostgreSQL. */
  findByHash(tokenHash: string): Promise<WakeTokenRecord | undefined>;
  markUsed(id: string, now: number, cursorSeq: number): Promise<void>;
  markFailed(id: string): Promise<void>;
  /** The session's pending deliveries with seq >= fromSeq, oldest first. */
  pendingFrom(sessionId: string, fromSeq: number, limit: number): Promise<InboxEntry[]>;
}

/** The PostgreSQL NOTIFY channel the 004 migration's trigger signals on every delivery insert. */
export const WAKE_CHANNEL = "agent_computer_wake";
