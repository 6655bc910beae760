// One HTTP server for every service (webhooks, the SDK's emit calls, the console). Loopback by
// default: binding another address is an explicit choice (--host).
import type { Server } from "bun";
import { MAX_WEBHOOK_BODY_BYTES } from "../domain/automation/webhook-accept.ts";
import { AppError, errorText } from "../errors.ts";
import type { WorkerContext } from "./worker-context.ts";
import { json, type Routes, type WorkerService } from "./worker-service.ts";

const baseRoutes = (ctx: WorkerContext, services: readonly WorkerService[]): Routes => ({
  "/healthz": { GET: () => json(200, { ok: true, worker_id: ctx.workerId, services: services.map((s) => s.name) }) },
  "/": {
    GET: () =>
      new Response(`agent-computer worker ${ctx.workerId}\nservices: ${services.map((s) => s.name).join(", ")}\n`, {
        headers: { "content-type": "text/plain; charset=utf-8" },
      }),
  },
});

/** Routes of later services win over earlier ones and over the base routes (a console may take "/"). */
export const mergeRoutes = (ctx: WorkerContext, services: readonly WorkerService[]): Routes => {
  const routes: Routes = baseRoutes(ctx, services);
  for (const service of services) {
    for (const [path, methods] of Object.entries(service.routes ?? {})) routes[path] = { ...routes[path], ...methods };
  }
  return routes;
};

export const listen = (ctx: WorkerContext, services: readonly WorkerService[]): Server<undefined> => {
  try {
    return Bun.serve({
      hostname: ctx.options.host,
      port: ctx.options.port,
      routes: mergeRoutes(ctx, services),
      fetch: () => json(404, { error: "not_found" }),
      error: (error) => {
        ctx.log.log("error", "request failed", { error: error.message });
        return json(500, { error: "internal" });
      },
      maxRequestBodySize: MAX_WEBHOOK_BODY_BYTES + 1024,
      idleTimeout: 30,
    });
  } catch (error) {
    throw bindFailure(ctx.options.host, ctx.options.port, error);
  }
};

/** Why --host/--port cannot be bound, in terms of the flag to change; anything else stays as it is (a bug). */
const bindFailure = (host: string, port: number, error: unknown): unknown => {
  const said = `${String((error as { code?: unknown })?.code ?? "")} ${errorText(error)}`;
  if (/EADDRINUSE|in use/i.test(said)) {
    return new AppError("ADDRESS_IN_USE", `${host}:${port} is already in use (another worker on this host?)`, {
      hint: "stop the other worker, or pass --port with a free port (0 picks one)",
    });
  }
  const hostReason = /ENOTFOUND|EAI_/.test(said)
    ? "the name does not resolve"
    : /EADDRNOTAVAIL/.test(said)
      ? "not an address of this machine"
      : /EINVAL/.test(said)
        ? "not an address this machine can listen on"
        : undefined;
  if (hostReason) {
    return new AppError("INVALID_INPUT", `--host: cannot listen on ${host}: ${hostReason}`, { cause: error });
  }
  if (/EACCES|EPERM/.test(said)) {
    return new AppError("INVALID_INPUT", `--port: may not listen on port ${port} (ports below 1024 need privileges)`, {
      cause: error,
    });
  }
  return error;
};

/** The URL scripts on this host use to reach the worker. */
export const localUrlOf = (server: Server<undefined>, host: string): string => localUrlFor(host, server.port ?? 0);

/** The same for a worker bound to host:port (a wildcard address is reached on loopback). */
export const localUrlFor = (host: string, port: number): string => {
  const name = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
};
