// Signature checks for webhook deliveries, over the raw body bytes and before any parsing.
// Standard Webhooks: HMAC-SHA256 over id.timestamp.body with the base64 key of the whsec_ secret, ±5 min tolerance.
// GitHub: X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256(secret, body); no timestamp, so replays are
// stopped by the delivery-id de-duplication alone.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookProvider } from "../../store/port.ts";

export const TIMESTAMP_TOLERANCE_SECONDS = 300;
const DELIVERY_ID = /^[A-Za-z0-9_:-]{1,200}$/;

export type Verdict =
  | { ok: true; deliveryId: string; ping: boolean; extensions: Record<string, string> }
  | { ok: false; reason: "missing_headers" | "bad_signature" | "stale_timestamp" | "bad_delivery_id"; message: string };

type Headers = Record<string, string>;

/** The signing key of a whsec_ secret (base64 after the prefix), as the reference library decodes it. */
const standardKey = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ""), "base64");

/** "v1," + base64 HMAC-SHA256 over `id.timestamp.` followed by the body's exact bytes. */
const standardSignature = (secret: string, id: string, timestampSeconds: number, body: Buffer): string =>
  `v1,${createHmac("sha256", standardKey(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest("base64")}`;

const sameText = (a: string, b: string): boolean => {
  const given = Buffer.from(a);
  const expected = Buffer.from(b);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

// The reference library decodes a Buffer body as UTF-8 before signing, which would make every invalid byte
// sequence sign as U+FFFD: a binary body signed over its bytes would fail, and two different invalid bodies
// would share one signature. So the HMAC is computed here over the bytes; the header rules are the library's.
const verifyStandard = (secret: string, body: Buffer, headers: Headers): Verdict => {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) {
    return {
      ok: false,
      reason: "missing_headers",
      message: "webhook-id, webhook-timestamp and webhook-signature are required",
    };
  }
  if (!DELIVERY_ID.test(id)) {
    return { ok: false, reason: "bad_delivery_id", message: "webhook-id must be 1-200 of A-Z a-z 0-9 _ : -" };
  }
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (Number.isNaN(seconds)) return { ok: false, reason: "bad_signature", message: "webhook-timestamp is not a Unix time" };
  if (Math.abs(Math.floor(Date.now() / 1000) - seconds) > TIMESTAMP_TOLERANCE_SECONDS) {
    return {
      ok: false,
      reason: "stale_timestamp",
      message: `webhook-timestamp is more than ${TIMESTAMP_TOLERANCE_SECONDS} s from now`,
    };
  }
  const expected = standardSignature(secret, id, seconds, body);
  const matches = signatures.split(" ").some((candidate) => candidate.startsWith("v1,") && sameText(candidate, expected));
  if (!matches) return { ok: false, reason: "bad_signature", message: "no webhook-signature matches the body" };
  return { ok: true, deliveryId: id, ping: false, extensions: {} };
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
export const signStandard = (secret: string, id: string, timestampSeconds: number, body: string | Buffer): string =>
  standardSignature(secret, id, timestampSeconds, Buffer.from(body));

export const signGithub = (secret: string, body: string | Buffer): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
