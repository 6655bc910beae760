import type { Deps } from "../domain/deps.ts";
import type { Paths } from "../paths.ts";
import type { Store } from "../store/port.ts";
import type { InstallPaths } from "./install-paths.ts";
import type { Logger } from "./log.ts";
import type { Nudge } from "./nudge.ts";
import type { WorkHints } from "./work-hints.ts";

export interface WorkerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  concurrency: number;
  once: boolean;
  leaseSeconds: number;
  pollMs: number;
  /** PostgreSQL with LISTEN working: the longest an idle service sleeps (work-hints.ts). */
  idlePollMs: number;
  drainSeconds: number;
  skillsDir: string;
  /**
   * Outbound webhooks: the retry schedule, when an endpoint is disabled, each attempt's timeout, and how many days
   * ended events are kept.
   */
  webhooks: { backoffMs: readonly number[]; disableAfter: number; timeoutMs: number; retentionDays: number };
}

/** What every worker service gets: one store, one logger, the options and the nudges between services. */
export interface WorkerContext {
  workerId: string;
  store: Store;
  options: WorkerOptions;
  paths: Paths;
  install: InstallPaths;
  env: Record<string, string | undefined>;
  log: Logger;
  /** The process's deps: this store, a live clock (services that need one instant read it once). */
  deps: Deps;
  /**
   * The services' nudges (nudge.ts): a trigger consumed here starts its run without waiting for a poll, and a NOTIFY
   * (presence.ts) ends each service's sleep.
   */
  nudge: { scheduler: Nudge; executor: Nudge; webhooks?: Nudge };
  /** Whether NOTIFY announces new work, so idle services may sleep long (work-hints.ts); absent means no. */
  hints?: WorkHints;
  /** Where scripts reach this worker (loopback when bound to every interface); set once the server listens. */
  localUrl(): string;
  /** The state directory's console token: the console's pages open only for a browser that holds it. */
  consoleToken: string;
  /** The Unix user running the worker: the console's owner, who writes as human-<user> (console/human-agent.ts). */
  consoleUser: string;
}
