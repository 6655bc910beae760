// The web console as a worker service: its read-only pages on the worker's HTTP server, no background work.
import { consoleRoutes } from "../console/routes.ts";
import type { WorkerContext } from "./context.ts";
import type { WorkerService } from "./service.ts";

export const consoleService = (ctx: WorkerContext): WorkerService => ({
  name: "console",
  routes: consoleRoutes({
    bindHost: ctx.options.host,
    localUrl: () => ctx.localUrl(),
    env: ctx.env,
    deps: ctx.deps,
    logError: (msg, fields) => ctx.log.child("console").log("error", msg, fields),
  }),
  start: () => {},
  drain: async () => {},
  force: async () => {},
});
