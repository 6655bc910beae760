// The web console as a worker service: its pages and forms on the worker's HTTP server, no background work.
import { consoleLink, linkCommand } from "../console/access.ts";
import { humanAgentId } from "../console/human-agent.ts";
import { consoleRoutes } from "../console/routes.ts";
import type { WorkerContext } from "./worker-context.ts";
import type { WorkerService } from "./worker-service.ts";

export const consoleService = (ctx: WorkerContext): WorkerService => ({
  name: "console",
  routes: consoleRoutes({
    bindHost: ctx.options.host,
    localUrl: () => ctx.localUrl(),
    token: ctx.consoleToken,
    env: ctx.env,
    paths: ctx.paths,
    humanAgentId: humanAgentId(ctx.consoleUser),
    deps: ctx.deps,
    logError: (msg, fields) => ctx.log.child("console").log("error", msg, fields),
  }),
  start: () => {},
  drain: async () => {},
  force: async () => {},
});

/**
 * What the start line says about the console. The link with its token goes only to the owner's terminal; a log that is
 * a file or a journal (which others may read, and which outlives the token's secrecy) gets the command that prints it.
 */
export const consoleStartFields = (url: string, token: string, stderrIsTerminal: boolean): Record<string, string> =>
  stderrIsTerminal
    ? { console_url: `${url}/`, console_link: consoleLink(url, token) }
    : { console_url: `${url}/`, console_link_command: linkCommand(url) };
