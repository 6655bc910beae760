// Signature checks for webhook deliveries, over the raw body bytes and before any parsing.
// Standard Webhooks: the reference library (HMAC-SHA256 over id.timestamp.body, ±5 min tolerance).
// GitHub: X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256(secret, body); no timestamp, so replays are
// stopped by the delivery-id de-duplication alone.
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { WebhookProvider } from "../../store/port.ts";

export const TIMESTAMP_TOLERANCE_SECONDS = 300;
const DELIVERY_ID = /^[A-Za-z0-9_:-]{1,200}$/;

export type Verdict =
  | { ok: true; deliveryId: string; ping: boolean; extensions: Record<string, string> }
  | { ok: false; reason: "missing_headers" | "bad_signature" | "stale_timestamp" | "bad_delivery_id"; message: string };

type Headers = Record<string, string>;

const verifyStandard = (secret: string, body: Buffer, headers: Headers): Verdict => {
  const id = headers["webhook-id"];
  if (id !== undefined && !DELIVERY_ID.test(id)) {
    return { ok: false, reason: "bad_delivery_id", message: "webhook-id must be 1-200 of A-Z a-z 0-9 _ : -" };
  }
  try {
    new Webhook(secret).verify(body, headers, { jsonParse: false });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    const message = error.message;
    if (/missing/i.test(message))
      return {
        ok: false,
        reason: "missing_headers",
        message: "webhook-id, webhook-timestamp and webhook-signature are required",
      };
    if (/timestamp too/i.test(message)) {
      return {
        ok: false,
        reason: "stale_timestamp",
        message: `webhook-timestamp is more than ${TIMESTAMP_TOLERANCE_SECONDS} s from now`,
      };
    }
    return { ok: false, reason: "bad_signature", message: "no webhook-signature matches the body" };
  }
  return { ok: true, deliveryId: id as string, ping: false, extensions: {} };
};

const verifyGithub = (secret: string, body: Buffer, headers: Headers): Verdict => {
  const signature = headers["x-hub-signature-256"];
  const delivery = headers["x-github-delivery"];
  const event = headers["x-github-event"] ?? "";
  if (!signature || !delivery) {
    return { ok: false, reason: "missing_headers", message: "X-Hub-Signature-256 and X-GitHub-Delivery are required" };
  }
  if (!DELIVERY_ID.test(delivery))
    return { ok: false, reason: "bad_delivery_id", message: "X-GitHub-Delivery is not a delivery id" };
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "bad_signature", message: "X-Hub-Signature-256 does not match the body" };
  }
  return {
    ok: true,
    deliveryId: delivery,
    ping: event === "ping",
    extensions: /^[a-z_]{1,64}$/.test(event) ? { githubevent: event } : {},
  };
};

export const verifyDelivery = (provider: WebhookProvider, secret: string, body: Buffer, headers: Headers): Verdict =>
  provider === "github" ? verifyGithub(secret, body, headers) : verifyStandard(secret, body, headers);

/** What a sender must compute (used by tests and the help's example). */
export const signStandard = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), body);

export const signGithub = (secret: string, body: string | Buffer): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
