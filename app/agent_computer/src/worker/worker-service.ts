import type { BunRequest } from "bun";
import type { WorkerContext } from "./worker-context.ts";

export type RouteHandler = (request: BunRequest) => Response | Promise<Response>;
/** Path pattern (Bun.serve syntax, e.g. "/hooks/:id") → method → handler. */
export type Routes = Record<string, Partial<Record<"GET" | "POST" | "PUT" | "DELETE", RouteHandler>>>;

/** One part of the worker. Services share the store, the logger and one HTTP server. */
export interface WorkerService {
  name: string;
  routes?: Routes;
  /** Begins the service's background work (daemon mode). */
  start(): void;
  /** --once: does everything due now and resolves when nothing is left. */
  drainOnce?(): Promise<void>;
  /** Shutdown stage 1: take no new work and let work in progress finish. */
  drain(): Promise<void>;
  /** Shutdown stage 2: abandon work in progress now. */
  force(): Promise<void>;
}

export type ServiceFactory = (ctx: WorkerContext) => WorkerService;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
