// Pure trigger logic: cron validation, next ticks across DST in a named zone, the misfire plan, and the webhook
// signature checks (Standard Webhooks and GitHub) over raw bytes.
import { describe, expect, test } from "vitest";
import { cronProblem, MAX_COUNTED_TICKS, nextTick, planCatchUp } from "../../app/agent_computer/src/domain/automation/cron.ts";
import { signGithub, signStandard, verifyDelivery } from "../../app/agent_computer/src/domain/automation/webhook-verify.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ticks = (expr: string, tz: string, from: string, n: number): string[] => {
  const out: string[] = [];
  let at = Date.parse(from);
  for (let i = 0; i < n; i++) {
    at = nextTick(expr, tz, at) as number;
    out.push(iso(at) as string);
  }
  return out;
};

describe("cron expressions", () => {
  test.each([
    ["* * * *", "UTC", "has 4 field(s); give 5 fields"],
    ["* * * * * * *", "UTC", "has 7 field(s); give 5 fields"],
    ["61 * * * *", "UTC", 'the minute field "61" is not valid'],
    ["0 9 * * *", "Mars/Olympus", "unknown IANA time zone"],
  ])("%j in %s is refused", (expr, tz, text) => {
    expect(cronProblem(expr, tz)?.problem).toContain(text);
  });
  test("5 fields and 6 fields (seconds) are accepted", () => {
    expect(cronProblem("*/15 9-17 * * mon-fri", "Europe/Berlin")).toBeUndefined();
    expect(cronProblem("*/10 * * * * *", "UTC")).toBeUndefined();
  });
});

describe("DST in America/New_York (2026-03-08 spring forward, 2026-11-01 fall back)", () => {
  test("a daily 02:30 falls in the gap and fires once, at 03:00 EDT; next day back to 02:30", () => {
    expect(ticks("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 3)).toEqual([
      "2026-03-08T07:00:00.000Z",
      "2026-03-09T06:30:00.000Z",
      "2026-03-10T06:30:00.000Z",
    ]);
  });
  test("a daily 01:30 that happens twice fires once, at its first occurrence (EDT)", () => {
    expect(ticks("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2)).toEqual([
      "2026-11-01T05:30:00.000Z",
      "2026-11-02T06:30:00.000Z",
    ]);
  });
  test("an every-30-minutes schedule fires every real half hour through the repeated hour", () => {
    expect(ticks("*/30 * * * *", "America/New_York", "2026-11-01T04:45:00Z", 5)).toEqual([
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T05:30:00.000Z",
      "2026-11-01T06:00:00.000Z",
      "2026-11-01T06:30:00.000Z",
      "2026-11-01T07:00:00.000Z",
    ]);
  });
});

describe("misfire plan", () => {
  const hourly = { expr: "0 * * * *", tz: "UTC", dueAt: Date.parse("2026-12-01T01:00:00Z") };
  test("on time: the due tick fires, nothing skipped", () => {
    const p = planCatchUp({ ...hourly, now: Date.parse("2026-12-01T01:00:00.200Z"), windowSeconds: 600 });
    expect([iso(p.fireTick), p.skipped, iso(p.nextDueAt)]).toEqual(["2026-12-01T01:00:00.000Z", 0, "2026-12-01T02:00:00.000Z"]);
  });
  test("late within the window: only the most recent missed tick fires; the others are counted", () => {
    const p = planCatchUp({ ...hourly, now: Date.parse("2026-12-01T05:04:00Z"), windowSeconds: 600 });
    expect([iso(p.fireTick), p.skipped, iso(p.nextDueAt)]).toEqual(["2026-12-01T05:00:00.000Z", 4, "2026-12-01T06:00:00.000Z"]);
  });
  test("late beyond the window: nothing fires, every missed tick is counted", () => {
    const p = planCatchUp({ ...hourly, now: Date.parse("2026-12-01T05:30:00Z"), windowSeconds: 600 });
    expect([p.fireTick, p.skipped, iso(p.latestTick), iso(p.nextDueAt)]).toEqual([
      null,
      5,
      "2026-12-01T05:00:00.000Z",
      "2026-12-01T06:00:00.000Z",
    ]);
  });
  test("a very long outage stops counting at a cap but still finds the latest tick", () => {
    const p = planCatchUp({
      expr: "* * * * * *",
      tz: "UTC",
      dueAt: Date.parse("2026-01-01T00:00:00Z"),
      now: Date.parse("2026-03-01T00:00:00.500Z"),
      windowSeconds: 60,
    });
    expect(iso(p.fireTick)).toBe("2026-03-01T00:00:00.000Z");
    expect(p.skipped).toBe(MAX_COUNTED_TICKS);
  });
});

describe("webhook signatures", () => {
  const secret = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
  const body = Buffer.from('{"n":1}');
  const now = () => Math.floor(Date.now() / 1000);
  const standard = (id: string, ts: number, b = body.toString(), s = secret) => ({
    "webhook-id": id,
    "webhook-timestamp": String(ts),
    "webhook-signature": signStandard(s, id, ts, b),
  });

  test("Standard Webhooks: a valid signature over id.timestamp.body passes, also among several signatures", () => {
    const headers = standard("msg_1", now());
    expect(verifyDelivery("standard", secret, body, headers)).toEqual({
      ok: true,
      deliveryId: "msg_1",
      ping: false,
      extensions: {},
    });
    const rotated = { ...headers, "webhook-signature": `v1,AAAA ${headers["webhook-signature"]}` };
    expect(verifyDelivery("standard", secret, body, rotated)).toMatchObject({ ok: true });
  });
  test.each([
    ["a changed body", () => verifyDelivery("standard", secret, Buffer.from('{"n":2}'), standard("m", now())), "bad_signature"],
    [
      "another secret",
      () =>
        verifyDelivery(
          "standard",
          secret,
          body,
          standard("m", now(), body.toString(), `whsec_${Buffer.alloc(32, 2).toString("base64")}`),
        ),
      "bad_signature",
    ],
    ["a timestamp 301 s old", () => verifyDelivery("standard", secret, body, standard("m", now() - 301)), "stale_timestamp"],
    ["a timestamp 301 s ahead", () => verifyDelivery("standard", secret, body, standard("m", now() + 301)), "stale_timestamp"],
    ["missing headers", () => verifyDelivery("standard", secret, body, {}), "missing_headers"],
    ["a delivery id with a dot", () => verifyDelivery("standard", secret, body, standard("a.b", now())), "bad_delivery_id"],
  ])("%s is rejected", (_name, verdict, reason) => {
    expect(verdict()).toMatchObject({ ok: false, reason });
  });
  test("GitHub: X-Hub-Signature-256 over the raw body; ping recognised; the event name becomes an extension", () => {
    const headers = (event: string, sig = signGithub(secret, body)) => ({
      "x-github-event": event,
      "x-github-delivery": "d-1",
      "x-hub-signature-256": sig,
    });
    expect(verifyDelivery("github", secret, body, headers("push"))).toEqual({
      ok: true,
      deliveryId: "d-1",
      ping: false,
      extensions: { githubevent: "push" },
    });
    expect(verifyDelivery("github", secret, body, headers("ping"))).toMatchObject({ ok: true, ping: true });
    expect(verifyDelivery("github", secret, body, headers("push", signGithub("other", body)))).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifyDelivery("github", secret, body, { "x-github-event": "push" })).toMatchObject({
      ok: false,
      reason: "missing_headers",
    });
  });
});
