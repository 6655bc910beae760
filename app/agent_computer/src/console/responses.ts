// The headers every console response carries, and the answers shared by its read and write routes: every response
// forbids inline script and style, framing and sniffing; forms may post only to the console itself. Referrers go
// to the console only: no page address leaves it, and its forms carry their Origin (under no-referrer a browser
// sends "Origin: null", which the write check could not tell from a sandboxed foreign page).
import { linkCommand } from "./access.ts";
import { deniedPage } from "./denied-page.ts";
import { html } from "./html.ts";
import { type ConsolePath, layout, type Page } from "./layout.ts";

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const COMMON_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};

export const PAGE_HEADERS = { ...COMMON_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };

export const refusedHost = (localUrl: string): Response =>
  new Response(`This console answers only to loopback host names; open ${localUrl}/\n`, {
    status: 421,
    headers: { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8" },
  });

/** Sec-Fetch-* are set by the browser itself; a page cannot forge them. */
const navigationFromAnotherSite = (request: Request): boolean =>
  request.headers.get("sec-fetch-site") === "cross-site" && request.headers.get("sec-fetch-mode") === "navigate";

export const denied = (localUrl: string, request: Request): Response =>
  new Response(deniedPage(linkCommand(localUrl), navigationFromAnotherSite(request)), { status: 401, headers: PAGE_HEADERS });

export const pageResponse = (content: Page, path: ConsolePath, status = 200): Response =>
  new Response(layout(content, path, new Date()).text, { status, headers: PAGE_HEADERS });

/** A refused write: the reason as a page, and nothing written. */
export const refusedWrite = (status: number, reason: string): Response =>
  pageResponse(
    {
      title: "Not sent",
      live: false,
      body: html`<p class="error" role="alert" data-field="error">${reason}</p><p>Nothing was written.</p>`,
    },
    "/compose",
    status,
  );

/** A write done: the browser goes to where its result shows (a redirect, so a reload does not send it again). */
export const seeOther = (location: string): Response =>
  new Response(null, { status: 303, headers: { ...COMMON_HEADERS, "cache-control": "no-store", location } });
