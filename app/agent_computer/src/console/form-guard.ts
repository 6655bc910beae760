// What a console write must carry, as a browser expects of a form that acts: the console's session cookie, an Origin
// that is this console's own, and the form's token. The form token is an HMAC of the form's action under the console
// token (the secret behind the cookie), so it is bound to that session, differs per form, and only a page of this
// console (which a foreign page can neither frame nor read: CSP, X-Frame-Options, no CORS) ever holds it.
import { createHmac, timingSafeEqual } from "node:crypto";
import { checkAccess } from "./access.ts";

export const FORM_TOKEN_FIELD = "form_token";

/** The largest form body read: a message body of 64 KiB, escaped as a form encodes it, and the other fields. */
export const MAX_FORM_BYTES = 256 * 1024;

export const formToken = (consoleToken: string, action: string): string =>
  createHmac("sha256", consoleToken).update(`console-form\0${action}`).digest("base64url");

const sameText = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export type WriteRefusal = { status: 401 | 403 | 413; reason: string };

/**
 * The checks that need no body: the cookie (a cross-site form never carries it: SameSite=Strict), and the Origin the
 * browser itself sets, which must name this console as the request reached it. A sign-in link is no cookie here.
 */
export const refuseBeforeBody = (request: Request, consoleToken: string, localUrl: string): WriteRefusal | undefined => {
  const url = new URL(request.url);
  if (url.searchParams.size > 0) return { status: 403, reason: "a console form posts no query string" };
  if (checkAccess(request, consoleToken, localUrl).kind !== "granted") {
    return {
      status: 401,
      reason: "this browser is not signed in to the console; open the link agent-computer-worker --console-url prints",
    };
  }
  const origin = request.headers.get("origin");
  const host = request.headers.get("host");
  if (!origin || !host || origin !== `${url.protocol}//${host}`) {
    return { status: 403, reason: "the form was not sent by a page of this console (its Origin differs)" };
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") {
    return { status: 403, reason: "the form was not sent by a page of this console (Sec-Fetch-Site)" };
  }
  const length = Number(request.headers.get("content-length") ?? "0");
  if (!Number.isFinite(length) || length > MAX_FORM_BYTES) return { status: 413, reason: "the form is too large" };
  return undefined;
};

/** The form token check, once the body is read. */
export const refuseFormToken = (form: URLSearchParams, consoleToken: string, action: string): WriteRefusal | undefined => {
  const given = form.get(FORM_TOKEN_FIELD);
  return typeof given === "string" && sameText(given, formToken(consoleToken, action))
    ? undefined
    : { status: 403, reason: "the form's token is missing or not this console's; reload the page and send again" };
};
