// Webhook signatures are checked over the request's exact bytes, for both profiles; the Standard Webhooks
// signature agrees with the reference library wherever the library is right (a UTF-8 body).
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, test } from "vitest";
import { signGithub, signStandard, verifyDelivery } from "../../app/agent_computer/src/domain/automation/webhook-verify.ts";

const SECRET = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;
const now = () => Math.floor(Date.now() / 1000);

const standardHeaders = (id: string, ts: number, signature: string) => ({
  "webhook-id": id,
  "webhook-timestamp": String(ts),
  "webhook-signature": signature,
});

/** The signature a sender computes over bytes, written out independently of the code under test. */
const senderSignature = (id: string, ts: number, body: Buffer) =>
  `v1,${createHmac("sha256", Buffer.from(SECRET.slice(6), "base64"))
    .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body]))
    .digest("base64")}`;

describe("Standard Webhooks over raw bytes", () => {
  test("a binary body signed over its bytes is accepted", () => {
    const body = Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x80]);
    const ts = now();
    const verdict = verifyDelivery("standard", SECRET, body, standardHeaders("msg_1", ts, senderSignature("msg_1", ts, body)));
    expect(verdict).toMatchObject({ ok: true, deliveryId: "msg_1" });
  });

  test("two different invalid-UTF-8 bodies cannot share one signature", () => {
    const first = Buffer.from([0xff, 0x41]);
    const second = Buffer.from([0xfe, 0x41]);
    expect(first.toString("utf8")).toBe(second.toString("utf8"));
    const ts = now();
    const headers = standardHeaders("msg_2", ts, signStandard(SECRET, "msg_2", ts, first));
    expect(verifyDelivery("standard", SECRET, first, headers)).toMatchObject({ ok: true });
    expect(verifyDelivery("standard", SECRET, second, headers)).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  test("for a UTF-8 body the signature is the reference library's, and one of several v1 signatures may match", () => {
    const body = '{"action":"opened","title":"café"}';
    const ts = now();
    const library = new Webhook(SECRET).sign("msg_3", new Date(ts * 1000), body);
    expect(signStandard(SECRET, "msg_3", ts, body)).toBe(library);
    const headers = standardHeaders("msg_3", ts, `v1,${"A".repeat(44)} ${library}`);
    expect(verifyDelivery("standard", SECRET, Buffer.from(body), headers)).toMatchObject({ ok: true });
  });

  test("missing headers, a bad delivery id and a stale or malformed timestamp are told apart", () => {
    const body = Buffer.from("{}");
    const ts = now();
    const sig = signStandard(SECRET, "msg_4", ts, body);
    expect(verifyDelivery("standard", SECRET, body, {})).toMatchObject({ reason: "missing_headers" });
    expect(verifyDelivery("standard", SECRET, body, standardHeaders("bad id", ts, sig))).toMatchObject({
      reason: "bad_delivery_id",
    });
    const stale = standardHeaders("msg_4", ts - 301, signStandard(SECRET, "msg_4", ts - 301, body));
    expect(verifyDelivery("standard", SECRET, body, stale)).toMatchObject({ reason: "stale_timestamp" });
    const future = standardHeaders("msg_4", ts + 301, signStandard(SECRET, "msg_4", ts + 301, body));
    expect(verifyDelivery("standard", SECRET, body, future)).toMatchObject({ reason: "stale_timestamp" });
    expect(
      verifyDelivery("standard", SECRET, body, { ...standardHeaders("msg_4", ts, sig), "webhook-timestamp": "x" }),
    ).toMatchObject({ reason: "bad_signature" });
  });
});

describe("GitHub X-Hub-Signature-256 over raw bytes", () => {
  const headers = (signature: string) => ({
    "x-hub-signature-256": signature,
    "x-github-delivery": "d-1",
    "x-github-event": "push",
  });

  test("a binary body signed over its bytes is accepted; a different invalid-UTF-8 body is refused", () => {
    const first = Buffer.from([0xff, 0x41]);
    const second = Buffer.from([0xfe, 0x41]);
    const expected = `sha256=${createHmac("sha256", SECRET).update(first).digest("hex")}`;
    expect(signGithub(SECRET, first)).toBe(expected);
    expect(verifyDelivery("github", SECRET, first, headers(expected))).toMatchObject({ ok: true });
    expect(verifyDelivery("github", SECRET, second, headers(expected))).toMatchObject({ ok: false, reason: "bad_signature" });
  });
});
