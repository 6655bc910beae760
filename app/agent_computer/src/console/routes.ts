// The console's routes, served on the worker's HTTP server (loopback by default; worker/console.ts mounts them):
// pages that read the mesh and the automation, three forms that write as the console's human agent
// (write-routes.ts), and two static files. A request naming a foreign Host is refused (host-guard.ts), and a page
// is only shown to a browser that holds the console token (access.ts); the stylesheet and the refresh script hold
// no data and are served to anyone.
import { jobsOverview, triggersOverview } from "../domain/automation/overview.ts";
import { leasesOverview } from "../domain/herdr/leases-overview.ts";
import { agentsOverview } from "../domain/mesh/agents-overview.ts";
import { channelsOverview, messagesOverview, threadOverview } from "../domain/mesh/operator-view.ts";
import { webhooksOverview } from "../domain/outbound-webhooks/endpoints.ts";
import { reservationView } from "../domain/reservations/reservation-view.ts";
import { taskView } from "../domain/tasks/task-view.ts";
import { AppError, errorText } from "../errors.ts";
import { checkAccess } from "./access.ts";
import { agentsPage } from "./agents-page.ts";
import { ASSETS } from "./assets.ts";
import { channelsPage } from "./channels-page.ts";
import { composeRoute } from "./compose-route.ts";
import { type ConsoleDeps, type ConsoleRoutes, LIMITS, type RouteHandler } from "./console-deps.ts";
import { formToken } from "./form-guard.ts";
import { hostAllowed } from "./host-guard.ts";
import { html } from "./html.ts";
import { jobsPage } from "./jobs-page.ts";
import type { ConsolePath, Page } from "./layout.ts";
import { leasesPage } from "./leases-page.ts";
import { ACK_ACTION, type Reader } from "./message-list.ts";
import { messagesPage } from "./messages-page.ts";
import { webhooksPage } from "./outbound-webhooks-page.ts";
import { COMMON_HEADERS, denied, pageResponse, refusedHost } from "./responses.ts";
import { tasksPage } from "./tasks-page.ts";
import { threadPage } from "./thread-page.ts";
import { triggersPage } from "./triggers-page.ts";
import { writeRoutes } from "./write-routes.ts";

export type { ConsoleDeps, ConsoleRoutes } from "./console-deps.ts";
export { LIMITS } from "./console-deps.ts";
export { CONTENT_SECURITY_POLICY } from "./responses.ts";

/** The answer to a page whose load failed: a bad address is the reader's to fix; anything else is in the log. */
const failedPage = (ctx: ConsoleDeps, path: ConsolePath, error: unknown): { status: number; content: Page } => {
  if (error instanceof AppError && error.code === "INVALID_INPUT") {
    return { status: 400, content: { title: "Bad address", body: html`<p class="error">${error.message}</p>` } };
  }
  // The message could name the database server; it goes to the log, not to the page.
  ctx.logError("console page failed", { path, error: errorText(error) });
  return {
    status: 503,
    content: {
      title: "Store unavailable",
      body: html`<p class="empty">The store could not be read; the worker log says why.</p>`,
    },
  };
};

export const page =
  (ctx: ConsoleDeps, path: ConsolePath, load: (url: URL) => Promise<Page>): RouteHandler =>
  async (request) => {
    if (!hostAllowed(ctx.bindHost, request.headers.get("host"))) return refusedHost(ctx.localUrl());
    const access = checkAccess(request, ctx.token, ctx.localUrl());
    if (access.kind === "denied") return denied(ctx.localUrl(), request);
    if (access.kind === "sign-in") {
      return new Response(null, {
        status: 303,
        headers: { ...COMMON_HEADERS, "cache-control": "no-store", location: access.location, "set-cookie": access.setCookie },
      });
    }
    try {
      return pageResponse(await load(new URL(request.url)), path);
    } catch (error) {
      const failed = failedPage(ctx, path, error);
      return pageResponse(failed.content, path, failed.status);
    }
  };

const assetRoutes = (ctx: ConsoleDeps): ConsoleRoutes =>
  Object.fromEntries(
    Object.entries(ASSETS).map(([path, asset]) => [
      path,
      {
        GET: (request: Request) =>
          hostAllowed(ctx.bindHost, request.headers.get("host"))
            ? new Response(asset.body, {
                headers: { ...COMMON_HEADERS, "content-type": asset.type, "cache-control": "no-cache" },
              })
            : refusedHost(ctx.localUrl()),
      },
    ]),
  );

const reader = (ctx: ConsoleDeps): Reader => ({ human: ctx.humanAgentId, ackToken: formToken(ctx.token, ACK_ACTION) });

const param = (url: URL, name: string): string | undefined => url.searchParams.get(name) ?? undefined;

const readRoutes = (ctx: ConsoleDeps): ConsoleRoutes => ({
  "/": { GET: page(ctx, "/", async () => jobsPage(await jobsOverview(ctx.deps, LIMITS), LIMITS)) },
  "/triggers": {
    GET: page(ctx, "/triggers", async () =>
      triggersPage(
        await triggersOverview(ctx.deps, { limit: LIMITS.triggers, includeEnded: true, baseUrl: ctx.localUrl() }),
        LIMITS.triggers,
      ),
    ),
  },
  "/webhooks": { GET: page(ctx, "/webhooks", async () => webhooksPage(await webhooksOverview(ctx.deps, LIMITS), LIMITS)) },
  "/agents": {
    GET: page(ctx, "/agents", async (url) => {
      const cursor = param(url, "cursor");
      const found = await agentsOverview(ctx.deps, { cursor, limit: LIMITS.agents });
      return agentsPage(found, LIMITS.agents, cursor === undefined);
    }),
  },
  "/messages": {
    GET: page(ctx, "/messages", async (url) => {
      const cursor = param(url, "cursor");
      const found = await messagesOverview(ctx.deps, { cursor, limit: LIMITS.messages, reader: ctx.humanAgentId });
      return messagesPage(found, reader(ctx), LIMITS.messages, cursor === undefined);
    }),
  },
  "/thread": {
    GET: page(ctx, "/messages", async (url) => {
      const threadId = param(url, "id") ?? "";
      const found = await threadOverview(ctx.deps, {
        threadId,
        cursor: param(url, "cursor"),
        limit: LIMITS.threadMessages,
        reader: ctx.humanAgentId,
      });
      return threadPage(threadId, found, reader(ctx), LIMITS.threadMessages);
    }),
  },
  "/channels": {
    GET: page(ctx, "/channels", async () => channelsPage(await channelsOverview(ctx.deps, LIMITS.channels), LIMITS.channels)),
  },
  "/tasks": {
    GET: page(ctx, "/tasks", async () =>
      tasksPage((await ctx.deps.store.read((tx) => tx.tasks.list({ limit: LIMITS.tasks }))).map(taskView), LIMITS.tasks),
    ),
  },
  "/leases": {
    GET: page(ctx, "/leases", async () => {
      const now = ctx.deps.now();
      const [leases, reservations] = await Promise.all([
        leasesOverview(ctx.deps, ctx.paths, LIMITS.leases),
        ctx.deps.store.read((tx) => tx.reservations.live({}, now, LIMITS.leases)),
      ]);
      return leasesPage(leases, reservations.map(reservationView), LIMITS.leases);
    }),
  },
  "/compose": { GET: page(ctx, "/compose", (url) => composeRoute(ctx, url)) },
});

export const consoleRoutes = (ctx: ConsoleDeps): ConsoleRoutes => {
  const routes: ConsoleRoutes = { ...readRoutes(ctx), ...assetRoutes(ctx) };
  for (const [path, methods] of Object.entries(writeRoutes(ctx))) routes[path] = { ...routes[path], ...methods };
  return routes;
};
