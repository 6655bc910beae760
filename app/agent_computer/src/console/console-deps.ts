// What the console needs from the process that serves it, the shape of its routes, and how much each page shows.
import type { Deps } from "../domain/deps.ts";
import type { Paths } from "../paths.ts";

export interface ConsoleDeps {
  /** The address the server is bound to: decides which Host headers are accepted (host-guard.ts). */
  bindHost: string;
  localUrl(): string;
  /** The state directory's console token (local/console-token.ts): the one secret that opens the pages. */
  token: string;
  env: Record<string, string | undefined>;
  /** The state directory: its vault keeps the token of the console's human agent. */
  paths: Paths;
  /** The agent the console's owner writes as (human-agent.ts). */
  humanAgentId: string;
  /** The serving process's deps (live clock; this host's id and process probe for liveness). */
  deps: Deps;
  logError(msg: string, fields: Record<string, unknown>): void;
}

export type RouteHandler = (request: Request) => Response | Promise<Response>;
/** Path → handler per method, in the shape Bun.serve's routes take. */
export type ConsoleRoutes = Record<string, { GET?: RouteHandler; POST?: RouteHandler }>;

export const LIMITS = {
  jobs: 50,
  runsPerJob: 5,
  triggers: 200,
  endpoints: 100,
  attempts: 100,
  messages: 50,
  agents: 200,
  threadMessages: 100,
  channels: 200,
  tasks: 100,
  leases: 200,
} as const;
