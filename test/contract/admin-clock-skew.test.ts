// doctor's clock check: this host's clock against the PostgreSQL server's, half the round trip as the uncertainty,
// an error beyond SKEW_BOUND_MS (store/server-clock.ts, the bound the worker warns at) once the uncertainty is taken off. The host's clock is shifted in the process
// (doctor is given it), the server's is the real one.
import { describe, expect, test } from "vitest";
import { clockCheck } from "../../app/agent_computer/src/cli/admin/doctor-store-checks.ts";
import { inspectStore } from "../../app/agent_computer/src/store/admin/inspect.ts";
import { judgeSkew, SKEW_BOUND_MS } from "../../app/agent_computer/src/store/server-clock.ts";
import { pgUrl } from "../helpers/stores.ts";

test("the skew is measured from the middle of the round trip, and only a skew beyond the bound plus the uncertainty fails", () => {
  expect(SKEW_BOUND_MS).toBe(1000);
  expect(judgeSkew({ sentAt: 1000, answeredAt: 1100, serverAt: 1050 })).toEqual({
    offset_ms: 0,
    round_trip_ms: 100,
    bound_ms: 1000,
    within_bound: true,
  });
  // 1040 ms off with ±50 ms: it may be 990, within the bound.
  expect(judgeSkew({ sentAt: 1000, answeredAt: 1100, serverAt: 1050 + 1040 }).within_bound).toBe(true);
  expect(judgeSkew({ sentAt: 1000, answeredAt: 1100, serverAt: 1050 + 1060 }).within_bound).toBe(false);
  expect(judgeSkew({ sentAt: 1000, answeredAt: 1100, serverAt: 1050 - 1060 })).toMatchObject({
    offset_ms: -1060,
    within_bound: false,
  });
});

describe.skipIf(!pgUrl)("doctor's clock check against the PostgreSQL server [postgres]", () => {
  const check = (shiftMs: number) => {
    const now = () => Date.now() + shiftMs;
    const env = { AGENT_COMPUTER_DATABASE_URL: pgUrl as string };
    return clockCheck.run({ env, launchEnv: env, stateDir: "/nonexistent", now, inspection: () => inspectStore(env, now) });
  };

  test("a host in step is ok; one five minutes ahead or behind is an error with the fix", async () => {
    const inStep = await check(0);
    expect(inStep.status).toBe("ok");
    expect(inStep.detail).toMatch(/within 1000 ms$/);
    const ahead = await check(5 * 60_000);
    expect(ahead).toMatchObject({ status: "error", fix: expect.stringMatching(/timedatectl|chrony/) });
    const measured = /^this host is (\d+) ms ahead of the PostgreSQL server/.exec(ahead.detail);
    expect(Math.abs(Number(measured?.[1]) - 300_000)).toBeLessThan(1000);
    const behind = await check(-5 * 60_000);
    expect(behind.status).toBe("error");
    expect(behind.detail).toMatch(/ms behind the PostgreSQL server/);
  });
});
