// One outbound webhook attempt over HTTP: the Standard Webhooks headers (webhook-id = the event id, the same on
// every retry; webhook-timestamp; webhook-signature v1,<base64 HMAC-SHA256 of id.timestamp.body>), a timeout, no
// redirects followed, the response body discarded unread. Only the status code or the class of error is kept.
import { lookup } from "node:dns/promises";
import { signStandard } from "../domain/automation/webhook-verify.ts";
import { isPrivateAddress } from "../domain/webhooks/addresses.ts";
import type { ClaimedWebhookEvent, WebhookAttemptResult } from "../store/port.ts";

export type PostResult = Omit<WebhookAttemptResult, "endedAt">;

/**
 * Resolves the URL's host and refuses it when any address is not public (unless the endpoint allows private ones);
 * a lookup that outlasts the attempt's time limit is a timeout. fetch resolves the name again, so a name whose
 * answer changes between the two lookups is not caught. A name that does not resolve is left to fetch to report.
 */
const addressCheck = async (
  url: URL,
  allowPrivate: boolean,
  timeoutMs: number,
): Promise<"ok" | "refused_address" | "timeout"> => {
  if (allowPrivate) return "ok";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = await Promise.race([lookup(host, { all: true }).catch(() => []), Bun.sleep(timeoutMs).then(() => undefined)]);
  if (addresses === undefined) return "timeout";
  return addresses.some((a) => isPrivateAddress(a.address)) ? "refused_address" : "ok";
};

export const postWebhook = async (
  claimed: ClaimedWebhookEvent,
  options: { timeoutMs: number; signal: AbortSignal; userAgent: string },
): Promise<PostResult> => {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const url = new URL(claimed.endpoint.url);
  const address = await addressCheck(url, claimed.endpoint.allowPrivate, options.timeoutMs);
  if (address !== "ok") return { ok: false, statusCode: null, errorKind: address, durationMs: elapsed() };
  const timestamp = Math.floor(Date.now() / 1000);
  const body = claimed.event.payload;
  const { secret, previousSecret, previousSecretUntil } = claimed.endpoint;
  // During a rotation's overlap both secrets sign; Standard Webhooks receivers accept any one matching signature.
  const secrets =
    previousSecret && previousSecretUntil !== null && previousSecretUntil > Date.now() ? [secret, previousSecret] : [secret];
  const signature = secrets.map((s) => signStandard(s, claimed.event.id, timestamp, body)).join(" ");
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": options.userAgent,
        "webhook-id": claimed.event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
      },
      body,
      redirect: "manual",
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
    });
    await response.body?.cancel().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return { ok, statusCode: response.status, errorKind: ok ? null : "http_status", durationMs: elapsed() };
  } catch (error) {
    const name = (error as { name?: string }).name;
    const errorKind = name === "TimeoutError" ? "timeout" : name === "AbortError" ? "aborted" : "connection";
    return { ok: false, statusCode: null, errorKind, durationMs: elapsed() };
  }
};
