// The identity and task parts of the store port (re-exported by port.ts).
import type { AgentRecord } from "./port-mesh.ts";

/** The agent row with everything registration records about its current holder. */
export interface IdentityRecord extends AgentRecord {
  managed: boolean;
  cliProfile: string | null;
  terminalTitleRef: string | null;
  recoveryHash: string | null;
  /** Messages older than this are not the current holder's: a name revoked without recovery starts clean. */
  holderSince: number;
}

/**
 * Facts about the holder of the name; replaced (or cleared) by every registration. Its process (pid, start time,
 * shell ancestry) is not among them: only its own host can use it, and keeps it (domain LocalProcesses).
 */
export interface HolderFacts {
  role: string | null;
  description: string | null;
  cliProfile: string | null;
  terminalTitleRef: string | null;
}

export interface NewIdentity extends HolderFacts {
  agentId: string;
  tokenHash: string;
  capabilities: string[];
  agentClass: string;
  hostId: string | null;
  managed: boolean;
  /** The name as names compare (domain/identity/names.ts nameKey): one registered name per key. */
  nameKey: string;
  now: number;
}

export interface Credentials {
  tokenHash: string;
  authState: AgentRecord["authState"];
  recoveryHash: string | null;
}

/** Registration, credentials and rate counters, inside one transaction. */
export interface IdentityRepo {
  getAgent(agentId: string, lock?: boolean): Promise<IdentityRecord | undefined>;
  insertAgent(agent: NewIdentity): Promise<void>;
  updateHolder(agentId: string, facts: HolderFacts, now: number): Promise<void>;
  /** Compare-and-swap on the stored token hash; returns whether the swap happened. */
  swapCredentials(agentId: string, expectedTokenHash: string, next: Credentials, now: number): Promise<boolean>;
  setCapabilities(agentId: string, capabilities: readonly string[], now: number): Promise<void>;
  /**
   * A typo's possible neighbours, filtered by the store so only a few reach the caller: registered names at most
   * `edits` characters longer or shorter than `typed` that share enough characters with it (counted with
   * repetition) that `edits` edits could turn one into the other, in name order, at most `limit`.
   */
  namesSharingCharacters(typed: string, edits: number, limit: number): Promise<string[]>;
  /** The registered name whose key is `nameKey`, if any (the first of any registered before keys existed). */
  nameWithKey(nameKey: string): Promise<string | undefined>;
  /** Deletes the agent, its sessions and its inbox deliveries; channels it leaves empty end at `now`. */
  deleteAgent(agentId: string, now: number): Promise<void>;
  /**
   * Ends what the name's holder had, so that nobody who registers the name later gets it: messages before `since`
   * are no longer the name's to see, and its webhooks, contact settings, retry keys and channel memberships go
   * (channels left empty end at `now`).
   */
  endHolderHistory(agentId: string, since: number, now: number): Promise<void>;
  /** Compare-and-swap end of the agent's open session: only if that exact session is still open. */
  endOpenSession(agentId: string, sessionId: string, now: number): Promise<boolean>;
  /**
   * Counts `count` (default one) in a fixed window and returns the window's count including them; older windows are
   * dropped.
   */
  takeRateSlot(bucket: string, windowStart: number, count?: number): Promise<number>;
}

export const TASK_PRIORITIES = ["low", "normal", "high", "urgent"] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const TASK_STATES = ["queued", "assigned", "accepted", "completed", "rejected", "cancelled"] as const;
export type TaskState = (typeof TASK_STATES)[number];

export interface TaskRecord {
  id: string;
  title: string;
  body: string;
  requiredCaps: string[];
  priority: TaskPriority;
  state: TaskState;
  poster: string;
  assignee: string | null;
  result: string | null;
  reason: string | null;
  createdAt: number;
  updatedAt: number;
  version: number;
}

export interface TaskChange {
  state: TaskState;
  assignee: string | null;
  result: string | null;
  reason: string | null;
  now: number;
}

export interface TaskFilter {
  /** Only tasks this agent posted or is assigned (in the time of the name's current holder); undefined = every task. */
  party?: string | undefined;
  states?: readonly TaskState[] | undefined;
  limit: number;
  /** Only tasks older than this one (created_at, then id): the page after one that ended there. */
  before?: { createdAt: number; id: string } | undefined;
}

/** Auto-routed tasks, inside one transaction. */
export interface TaskRepo {
  insert(task: TaskRecord): Promise<void>;
  get(id: string): Promise<TaskRecord | undefined>;
  /** Compare-and-swap on the version read; returns the new row, or undefined when someone changed it first. */
  change(id: string, expectedVersion: number, change: TaskChange): Promise<TaskRecord | undefined>;
  /** Queued tasks, most urgent first, oldest first within a priority. */
  queued(limit: number): Promise<TaskRecord[]>;
  /** Number of assigned or accepted tasks per assignee. */
  openLoad(): Promise<Map<string, number>>;
  openAssignedTo(assignee: string): Promise<TaskRecord[]>;
  list(filter: TaskFilter): Promise<TaskRecord[]>;
  /** How many tasks list(filter) would return without its limit. */
  count(filter: Omit<TaskFilter, "limit">): Promise<number>;
}
