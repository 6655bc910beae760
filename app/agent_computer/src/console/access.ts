// Who may read the console: whoever holds the state directory's console token (local/console-token.ts), which only
// its Unix owner can read. The link that carries the token (?token=…) is traded once for an HttpOnly, SameSite=Strict
// cookie and a redirect to the same page without it, so the token stays out of history, bookmarks and Referer.
// Webhook and SDK endpoints are not console pages: they never pass through here (they check their own signatures).
import { createHash, timingSafeEqual } from "node:crypto";

export const TOKEN_PARAM = "token";

/** How long a browser stays signed in; the token file outlives worker restarts, so does the cookie. */
export const COOKIE_MAX_AGE_SECONDS = 30 * 24 * 3600;

/** The command that prints the link, as its owner types it for the worker on this address. */
export const linkCommand = (localUrl: string): string => {
  const { hostname, port } = new URL(localUrl);
  const host = hostname === "127.0.0.1" ? "" : ` --host ${hostname.replace(/^\[|\]$/g, "")}`;
  return `agent-computer-worker --console-url${port === "8787" ? "" : ` --port ${port}`}${host}`;
};

/** The page address that signs a browser in. */
export const consoleLink = (localUrl: string, token: string): string => `${localUrl}/?${TOKEN_PARAM}=${token}`;

/**
 * One cookie per port: cookies ignore ports, and two workers on one host (two state directories, two tokens) must not
 * sign each other's browsers out.
 */
export const cookieName = (localUrl: string): string => `agent_computer_console_${new URL(localUrl).port || "80"}`;

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/** Constant time whatever the lengths: both sides are hashed to one length first. */
export const tokenMatches = (given: string | undefined, token: string): boolean =>
  given !== undefined && given.length > 0 && timingSafeEqual(digest(given), digest(token));

const cookieValue = (header: string | null, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
};

export type Access =
  | { kind: "granted" }
  /** A valid link: set the cookie and send the browser to the same page without the token. */
  | { kind: "sign-in"; location: string; setCookie: string }
  | { kind: "denied" };

export const checkAccess = (request: Request, token: string, localUrl: string): Access => {
  const url = new URL(request.url);
  const name = cookieName(localUrl);
  if (url.searchParams.has(TOKEN_PARAM)) {
    // A wrong link is refused even beside a good cookie: the user learns that link is dead.
    if (!tokenMatches(url.searchParams.get(TOKEN_PARAM) ?? undefined, token)) return { kind: "denied" };
    url.searchParams.delete(TOKEN_PARAM);
    return {
      kind: "sign-in",
      location: `${url.pathname}${url.search}`,
      setCookie: `${name}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MAX_AGE_SECONDS}`,
    };
  }
  return tokenMatches(cookieValue(request.headers.get("cookie"), name), token) ? { kind: "granted" } : { kind: "denied" };
};
