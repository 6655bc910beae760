// doctor's clock check: this host's clock against the PostgreSQL server's, half the round trip as the uncertainty,
// an error beyond MAX_CLOCK_SKEW_MS once the uncertainty is taken off. The host's clock is shifted in the process
// (doctor is given it), the server's is the real one.
import { describe, expect, test } from "vitest";
import { clockCheck } from "../../app/agent_computer/src/cli/admin/doctor-store-checks.ts";
import { clockSkew, MAX_CLOCK_SKEW_MS } from "../../app/agent_computer/src/domain/admin/clock-skew.ts";
import { inspectStore } from "../../app/agent_computer/src/store/admin/inspect.ts";
import { pgUrl } from "../helpers/stores.ts";

test("the skew is measured from the middle of the round trip, and only a skew beyond the bound plus the uncertainty fails", () => {
  expect(MAX_CLOCK_SKEW_MS).toBe(2000);
  expect(clockSkew({ sentAt: 1000, receivedAt: 1100, serverAt: 1050 })).toEqual({
    skew_ms: 0,
    uncertainty_ms: 50,
    round_trip_ms: 100,
    too_far: false,
  });
  // 2040 ms off with ±50 ms: it may be 1990, within the bound.
  expect(clockSkew({ sentAt: 1000, receivedAt: 1100, serverAt: 1050 + 2040 }).too_far).toBe(false);
  expect(clockSkew({ sentAt: 1000, receivedAt: 1100, serverAt: 1050 + 2060 }).too_far).toBe(true);
  expect(clockSkew({ sentAt: 1000, receivedAt: 1100, serverAt: 1050 - 2060 })).toMatchObject({ skew_ms: -2060, too_far: true });
});

describe.skipIf(!pgUrl)("doctor's clock check against the PostgreSQL server [postgres]", () => {
  const check = (shiftMs: number) => {
    const now = () => Date.now() + shiftMs;
    const env = { AGENT_COMPUTER_DATABASE_URL: pgUrl as string };
    return clockCheck.run({ env, stateDir: "/nonexistent", now, inspection: () => inspectStore(env, now) });
  };

  test("a host in step is ok; one five minutes ahead or behind is an error with the fix", async () => {
    const inStep = await check(0);
    expect(inStep.status).toBe("ok");
    expect(inStep.detail).toMatch(/within 2000 ms$/);
    const ahead = await check(5 * 60_000);
    expect(ahead).toMatchObject({ status: "error", fix: expect.stringMatching(/timedatectl|chrony/) });
    const measured = /^this host is (\d+) ms ahead of the PostgreSQL server/.exec(ahead.detail);
    expect(Math.abs(Number(measured?.[1]) - 300_000)).toBeLessThan(1000);
    const behind = await check(-5 * 60_000);
    expect(behind.status).toBe("error");
    expect(behind.detail).toMatch(/ms behind the PostgreSQL server/);
  });
});
