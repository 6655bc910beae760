// The rules an endpoint URL must meet, checked when it is added (a refused URL writes nothing).
import { isPrivateHost } from "./addresses.ts";

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Why `text` cannot be an endpoint URL, or undefined when it can. */
export const webhookUrlProblem = (text: string, allowPrivate: boolean): string | undefined => {
  const url = URL.parse(text);
  if (!url) return "is not an absolute URL";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be http:// or https://";
  if (url.username || url.password) return "must not carry credentials (user:password@); authenticate receivers by the signature";
  if (url.hash) return "must not have a #fragment (it is never sent)";
  if (!allowPrivate && isPrivateHost(url.hostname)) {
    return "names a loopback, private, link-local or other address that is not globally reachable; pass --allow-private to let the worker reach it";
  }
  return undefined;
};

/** The URL as shown in lists and the console: origin and path, never the query (it may hold a key). */
export const displayUrl = (text: string): string => {
  const url = URL.parse(text);
  if (!url) return text;
  return `${url.origin}${url.pathname}${url.search ? "?…" : ""}`;
};
