// The console as a worker service: three read-only pages and their two static files on the worker's HTTP
// server (loopback by default). Every response forbids inline script and style, framing and sniffing;
// a request naming a foreign Host is refused (host-guard.ts).
import { localHostId, probePid } from "../adapters/local-host.ts";
import { jobsOverview, triggersOverview } from "../domain/automation/overview.ts";
import { listAgents } from "../domain/mesh/directory.ts";
import type { WorkerContext } from "../worker/context.ts";
import { errorText } from "../worker/log.ts";
import type { RouteHandler, Routes, WorkerService } from "../worker/service.ts";
import { agentsPage } from "./agents-page.ts";
import { ASSETS } from "./assets.ts";
import { hostAllowed } from "./host-guard.ts";
import { html } from "./html.ts";
import { jobsPage } from "./jobs-page.ts";
import { type ConsolePath, layout, type Page } from "./layout.ts";
import { triggersPage } from "./triggers-page.ts";

export const LIMITS = { jobs: 50, runsPerJob: 5, triggers: 200 } as const;

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const COMMON_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

const refusedHost = (ctx: WorkerContext): Response =>
  new Response(`This console answers only to loopback host names; open ${ctx.localUrl()}/\n`, {
    status: 421,
    headers: { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8" },
  });

const page =
  (ctx: WorkerContext, path: ConsolePath, load: () => Promise<Page>): RouteHandler =>
  async (request) => {
    if (!hostAllowed(ctx.options.host, request.headers.get("host"))) return refusedHost(ctx);
    let status = 200;
    let content: Page;
    try {
      content = await load();
    } catch (error) {
      // The message could name the database server; it goes to the log, not to the page.
      ctx.log.child("console").log("error", "console page failed", { path, error: errorText(error) });
      status = 503;
      content = {
        title: "Store unavailable",
        body: html`<p class="empty">The store could not be read; the worker log says why.</p>`,
      };
    }
    return new Response(layout(content, path, new Date()).text, {
      status,
      headers: { ...COMMON_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  };

const assetRoutes = (ctx: WorkerContext): Routes =>
  Object.fromEntries(
    Object.entries(ASSETS).map(([path, asset]) => [
      path,
      {
        GET: (request) =>
          hostAllowed(ctx.options.host, request.headers.get("host"))
            ? new Response(asset.body, {
                headers: { ...COMMON_HEADERS, "content-type": asset.type, "cache-control": "no-cache" },
              })
            : refusedHost(ctx),
      },
    ]),
  );

export const consoleService = (ctx: WorkerContext): WorkerService => ({
  name: "console",
  routes: {
    "/": {
      GET: page(ctx, "/", async () => jobsPage(await jobsOverview(ctx.deps(), LIMITS), LIMITS)),
    },
    "/triggers": {
      GET: page(ctx, "/triggers", async () =>
        triggersPage(
          await triggersOverview(ctx.deps(), { limit: LIMITS.triggers, includeEnded: true, baseUrl: ctx.localUrl() }),
          LIMITS.triggers,
        ),
      ),
    },
    "/agents": {
      GET: page(ctx, "/agents", async () =>
        agentsPage(
          await listAgents(
            { ...ctx.deps(), local: { hostId: await localHostId(ctx.env), probe: probePid } },
            { includeStale: true, token: undefined },
          ),
        ),
      ),
    },
    ...assetRoutes(ctx),
  },
  start: () => {},
  drain: async () => {},
  force: async () => {},
});
