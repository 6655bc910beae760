// The console's routes: four read-only pages and their two static files, served on the worker's HTTP
// server (loopback by default; worker/console.ts mounts them). Every response forbids inline script and style, framing and sniffing;
// a request naming a foreign Host is refused (host-guard.ts), and a page is only shown to a browser that holds the
// console token (access.ts); the stylesheet and the refresh script hold no data and are served to anyone.
import { jobsOverview, triggersOverview } from "../domain/automation/overview.ts";
import type { Deps } from "../domain/deps.ts";
import { listAgents } from "../domain/mesh/directory.ts";
import { webhooksOverview } from "../domain/outbound-webhooks/endpoints.ts";
import { errorText } from "../errors.ts";
import { checkAccess, linkCommand } from "./access.ts";
import { agentsPage } from "./agents-page.ts";
import { ASSETS } from "./assets.ts";
import { deniedPage } from "./denied-page.ts";
import { hostAllowed } from "./host-guard.ts";
import { html } from "./html.ts";
import { jobsPage } from "./jobs-page.ts";
import { type ConsolePath, layout, type Page } from "./layout.ts";
import { webhooksPage } from "./outbound-webhooks-page.ts";
import { triggersPage } from "./triggers-page.ts";

/** What the console needs from the process that serves it. */
export interface ConsoleDeps {
  /** The address the server is bound to: decides which Host headers are accepted (host-guard.ts). */
  bindHost: string;
  localUrl(): string;
  /** The state directory's console token (local/console-token.ts): the one secret that opens the pages. */
  token: string;
  env: Record<string, string | undefined>;
  /** The serving process's deps (live clock; this host's id and process probe for liveness). */
  deps: Deps;
  logError(msg: string, fields: Record<string, unknown>): void;
}

type RouteHandler = (request: Request) => Response | Promise<Response>;
/** Path → GET handler, in the shape Bun.serve's routes take. */
export type ConsoleRoutes = Record<string, { GET: RouteHandler }>;

export const LIMITS = { jobs: 50, runsPerJob: 5, triggers: 200, endpoints: 100, attempts: 100 } as const;

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const COMMON_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

const refusedHost = (ctx: ConsoleDeps): Response =>
  new Response(`This console answers only to loopback host names; open ${ctx.localUrl()}/\n`, {
    status: 421,
    headers: { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8" },
  });

const PAGE_HEADERS = { ...COMMON_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };

/** Sec-Fetch-* are set by the browser itself; a page cannot forge them. */
const navigationFromAnotherSite = (request: Request): boolean =>
  request.headers.get("sec-fetch-site") === "cross-site" && request.headers.get("sec-fetch-mode") === "navigate";

const denied = (ctx: ConsoleDeps, request: Request): Response =>
  new Response(deniedPage(linkCommand(ctx.localUrl()), navigationFromAnotherSite(request)), {
    status: 401,
    headers: PAGE_HEADERS,
  });

const page =
  (ctx: ConsoleDeps, path: ConsolePath, load: () => Promise<Page>): RouteHandler =>
  async (request) => {
    if (!hostAllowed(ctx.bindHost, request.headers.get("host"))) return refusedHost(ctx);
    const access = checkAccess(request, ctx.token, ctx.localUrl());
    if (access.kind === "denied") return denied(ctx, request);
    if (access.kind === "sign-in") {
      return new Response(null, {
        status: 303,
        headers: { ...COMMON_HEADERS, "cache-control": "no-store", location: access.location, "set-cookie": access.setCookie },
      });
    }
    let status = 200;
    let content: Page;
    try {
      content = await load();
    } catch (error) {
      // The message could name the database server; it goes to the log, not to the page.
      ctx.logError("console page failed", { path, error: errorText(error) });
      status = 503;
      content = {
        title: "Store unavailable",
        body: html`<p class="empty">The store could not be read; the worker log says why.</p>`,
      };
    }
    return new Response(layout(content, path, new Date()).text, { status, headers: PAGE_HEADERS });
  };

const assetRoutes = (ctx: ConsoleDeps): ConsoleRoutes =>
  Object.fromEntries(
    Object.entries(ASSETS).map(([path, asset]) => [
      path,
      {
        GET: (request) =>
          hostAllowed(ctx.bindHost, request.headers.get("host"))
            ? new Response(asset.body, {
                headers: { ...COMMON_HEADERS, "content-type": asset.type, "cache-control": "no-cache" },
              })
            : refusedHost(ctx),
      },
    ]),
  );

export const consoleRoutes = (ctx: ConsoleDeps): ConsoleRoutes => ({
  "/": {
    GET: page(ctx, "/", async () => jobsPage(await jobsOverview(ctx.deps, LIMITS), LIMITS)),
  },
  "/triggers": {
    GET: page(ctx, "/triggers", async () =>
      triggersPage(
        await triggersOverview(ctx.deps, { limit: LIMITS.triggers, includeEnded: true, baseUrl: ctx.localUrl() }),
        LIMITS.triggers,
      ),
    ),
  },
  "/webhooks": {
    GET: page(ctx, "/webhooks", async () => webhooksPage(await webhooksOverview(ctx.deps, LIMITS), LIMITS)),
  },
  "/agents": {
    GET: page(ctx, "/agents", async () => agentsPage(await listAgents(ctx.deps, { includeStale: true, token: undefined }))),
  },
  ...assetRoutes(ctx),
});
