// The store port: domain-level operations, not SQL. Both adapters (SQLite, PostgreSQL) implement it and
// pass the same contract suites (test/contract/*-store.test.ts, each run against both stores).

import type { AdminRepo } from "./port-admin.ts";
import type { AutomationRepo } from "./port-automation.ts";
import type { ChannelRepo } from "./port-channels.ts";
import type { HerdrRepo } from "./port-herdr.ts";
import type { IdentityRepo, TaskRepo } from "./port-identity.ts";
import type { MeshRepo } from "./port-mesh.ts";
import type { WebhookRepo } from "./port-outbound-webhooks.ts";
import type { OverviewRepo } from "./port-overview.ts";
import type { ReservationRepo } from "./port-reservations.ts";
import type { WakeRepo } from "./port-wake.ts";

export type * from "./port-admin.ts";
export type * from "./port-automation.ts";
export { AUTOMATION_CHANNEL } from "./port-automation.ts";
export type * from "./port-broadcast.ts";
export type * from "./port-channels.ts";
export type * from "./port-herdr.ts";
export type * from "./port-identity.ts";
export type * from "./port-mesh.ts";
export type * from "./port-outbound-webhooks.ts";
export { WEBHOOK_CHANNEL, WEBHOOK_EVENT_KINDS } from "./port-outbound-webhooks.ts";
export type * from "./port-overview.ts";
export type * from "./port-reservations.ts";
export type * from "./port-wake.ts";
export { WAKE_CHANNEL } from "./port-wake.ts";

export interface StoreTx {
  mesh: MeshRepo;
  channels: ChannelRepo;
  identity: IdentityRepo;
  tasks: TaskRepo;
  automation: AutomationRepo;
  wake: WakeRepo;
  herdr: HerdrRepo;
  webhooks: WebhookRepo;
  reservations: ReservationRepo;
  /** The operator's reads across every agent (the console). */
  overview: OverviewRepo;
  admin: AdminRepo;
}

/** What a write transaction is, when the store can use knowing it; the store decides what follows from it. */
export interface WriteOptions {
  /**
   * The agents whose rows fn writes, when known before it runs. On PostgreSQL a batch of several processes' writes
   * locks them all first, in the one order (lock-order.ts), so the batch cannot deadlock with another writer of the
   * same agents. A hint: fn still locks what it writes.
   */
  agents?: readonly string[];
  /**
   * The transaction sends one message from `sender`, to `recipients` when they are named before it runs (a
   * broadcast or a reply finds them inside); it writes those agents' rows (as `agents`). A send is correct whatever another send writes between two of its
   * statements: its sequence numbers, rate counters and session expiry are each taken by one atomic statement,
   * its presence writes may repeat, and a reused idempotency key fails the unique index.
   */
  send?: { sender: string; recipients?: readonly string[] | undefined };
}

export interface Store {
  readonly dialect: "sqlite" | "postgres";
  /**
   * One write transaction: everything done through tx commits together or not at all. fn may run more than
   * once (PostgreSQL retries a deadlock; SQLite replays a batch in which another caller's fn threw), and only
   * its last run counts: it must not touch anything outside tx (files, processes, output, outer variables);
   * do such things after write returns. It must not carry on past a failed statement either: on PostgreSQL
   * that aborts the transaction.
   */
  write<T>(fn: (tx: StoreTx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** One read-only transaction over a consistent snapshot; fn follows write's rules. */
  read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /** PostgreSQL only: calls onHint on each NOTIFY on the channel (and on every re-subscribe); returns the unsubscriber. */
  listen?(channel: string, onHint: () => void): Promise<() => Promise<void>>;
  /**
   * SQLite only: calls onHint when the database file or its WAL changes (a commit by any process; spurious hints
   * happen, missed ones may too, so callers still poll slowly); returns the unsubscriber.
   */
  watchCommits?(onHint: () => void): Promise<() => Promise<void>>;
  /** PostgreSQL only: the server's clock, in epoch milliseconds (server-clock.ts turns it into this host's offset). */
  serverNow?(): Promise<number>;
  close(): Promise<void>;
}

/** Raised by drivers for a unique-constraint violation, so services can re-read instead of failing. */
export class UniqueViolation extends Error {
  constructor(
    readonly constraint: string,
    options?: { cause?: unknown },
  ) {
    super(`unique constraint violated: ${constraint}`, options);
    this.name = "UniqueViolation";
  }
}
