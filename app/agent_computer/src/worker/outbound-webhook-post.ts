// One outbound webhook attempt over HTTP: the Standard Webhooks headers (webhook-id = the event id, the same on
// every retry; webhook-timestamp; webhook-signature v1,<base64 HMAC-SHA256 of id.timestamp.body>), a time limit, no
// redirects followed, the response body discarded unread. Only the status code or the class of error is kept.
//
// The host is looked up once, and the connection goes to exactly the addresses that lookup returned and that were
// checked (node:http's `lookup` option): a name whose answer changes between the check and the connection (DNS
// rebinding) cannot steer the request to a private address. TLS still verifies the certificate against the host name.
import { lookup } from "node:dns/promises";
import type { ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import type { LookupFunction } from "node:net";
import { signStandard } from "../domain/automation/webhook-verify.ts";
import { isRefusedAddress } from "../domain/outbound-webhooks/addresses.ts";
import type { ClaimedWebhookEvent, WebhookAttemptResult } from "../store/port.ts";

export type PostResult = Omit<WebhookAttemptResult, "endedAt">;

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Every address of a host name (the system resolver, as the request would otherwise use). */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;
const systemResolve: Resolve = (host) => lookup(host, { all: true });

type Checked = { kind: "ok"; addresses: ResolvedAddress[] } | { kind: "refused_address" | "timeout" | "connection" };

/**
 * The host's addresses, refused when any is not public or is one of this machine's own (unless the endpoint allows
 * private ones); a lookup that outlasts the attempt's time limit is a timeout, and a name that does not resolve a
 * connection failure.
 */
const checkedAddresses = async (
  host: string,
  allowPrivate: boolean,
  timeoutMs: number,
  resolve: Resolve,
  ownAddresses: () => string[],
): Promise<Checked> => {
  const addresses = await Promise.race([resolve(host).catch(() => []), Bun.sleep(timeoutMs).then(() => undefined)]);
  if (addresses === undefined) return { kind: "timeout" };
  if (addresses.length === 0) return { kind: "connection" };
  if (!allowPrivate) {
    const own = ownAddresses();
    if (addresses.some((a) => isRefusedAddress(a.address, own))) return { kind: "refused_address" };
  }
  return { kind: "ok", addresses };
};

/** A `lookup` for node:http that answers with the checked addresses only, whatever name it is asked for. */
const pinnedLookup =
  (addresses: ResolvedAddress[]): LookupFunction =>
  (_host, options, callback) => {
    const [first] = addresses as [ResolvedAddress];
    if (options.all) (callback as (e: null, all: ResolvedAddress[]) => void)(null, addresses);
    else callback(null, first.address, first.family);
  };

class AttemptTimeout extends Error {
  override name = "TimeoutError";
}

/** The response's status code; the body is dropped unread. Rejects on a connection failure, the time limit or abort. */
const request = async (
  url: URL,
  options: RequestOptions,
  body: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<number> => {
  const { request: send } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise<number>((resolve, reject) => {
    let req: ClientRequest | undefined;
    const stop = (error: Error) => req?.destroy(error);
    const timer = setTimeout(() => stop(new AttemptTimeout("the attempt's time limit ran out")), timeoutMs);
    const onAbort = () => stop(Object.assign(new Error("aborted"), { name: "AbortError" }));
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    req = send(url, options, (response: IncomingMessage) => {
      settle();
      response.destroy();
      resolve(response.statusCode ?? 0);
    });
    req.on("error", (error) => {
      settle();
      reject(error);
    });
    if (signal.aborted) onAbort();
    req.end(body);
  });
};

export const postWebhook = async (
  claimed: ClaimedWebhookEvent,
  options: {
    timeoutMs: number;
    signal: AbortSignal;
    userAgent: string;
    resolve?: Resolve;
    /** This machine's addresses (every interface's, read per attempt: deps.local.addresses). */
    ownAddresses: () => string[];
    /** The store's clock (deps.now): a rotation's overlap end was written on it, perhaps by another host. */
    now: () => number;
  },
): Promise<PostResult> => {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const url = new URL(claimed.endpoint.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const checked = await checkedAddresses(
    host,
    claimed.endpoint.allowPrivate,
    options.timeoutMs,
    options.resolve ?? systemResolve,
    options.ownAddresses,
  );
  if (checked.kind !== "ok") return { ok: false, statusCode: null, errorKind: checked.kind, durationMs: elapsed() };
  const timestamp = Math.floor(Date.now() / 1000);
  const body = claimed.event.payload;
  const { secret, previousSecret, previousSecretUntil } = claimed.endpoint;
  // During a rotation's overlap both secrets sign; Standard Webhooks receivers accept any one matching signature.
  const secrets =
    previousSecret && previousSecretUntil !== null && previousSecretUntil > options.now() ? [secret, previousSecret] : [secret];
  const signature = secrets.map((s) => signStandard(s, claimed.event.id, timestamp, body)).join(" ");
  const headers = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "user-agent": options.userAgent,
    "webhook-id": claimed.event.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature,
  };
  const remaining = Math.max(1, options.timeoutMs - elapsed());
  try {
    const statusCode = await request(
      url,
      { method: "POST", headers, lookup: pinnedLookup(checked.addresses) },
      body,
      remaining,
      options.signal,
    );
    const ok = statusCode >= 200 && statusCode < 300;
    return { ok, statusCode, errorKind: ok ? null : "http_status", durationMs: elapsed() };
  } catch (error) {
    const name = (error as { name?: string }).name;
    const errorKind = name === "TimeoutError" ? "timeout" : name === "AbortError" ? "aborted" : "connection";
    return { ok: false, statusCode: null, errorKind, durationMs: elapsed() };
  }
};
