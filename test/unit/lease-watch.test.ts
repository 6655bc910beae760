// The attempt's lease as the worker keeps it: a refused renewal, or one that never answers (a cut link), ends it.
import { describe, expect, test } from "vitest";
import { watchLease } from "../../app/agent_computer/src/worker/lease-watch.ts";
import { pollUntil } from "../helpers/wait.ts";

const lostWithin = (renew: () => Promise<boolean>) => {
  let lost = 0;
  const watch = watchLease(300, renew, () => lost++);
  return {
    lost: () => lost,
    settled: () =>
      pollUntil(() => (lost > 0 ? lost : undefined), { timeoutMs: 20_000, stepMs: 20, what: "the lease to be lost" }),
    stop: () => watch.stop(),
  };
};

describe("watchLease", () => {
  test("a renewal that never answers loses the lease once it has run out, and only once", async () => {
    let asked = 0;
    const w = lostWithin(() => {
      asked++;
      return new Promise<boolean>(() => {});
    });
    expect(await w.settled()).toBe(1);
    await Bun.sleep(400);
    expect(w.lost()).toBe(1);
    // One renewal in flight at a time: a hung one is not piled on.
    expect(asked).toBe(1);
    w.stop();
  });

  test("a refused renewal (another worker took the run) loses the lease", async () => {
    const w = lostWithin(async () => false);
    expect(await w.settled()).toBe(1);
    w.stop();
  });

  test("renewals that fail (the store unreachable) lose it when it runs out", async () => {
    const w = lostWithin(() => Promise.reject(new Error("store unavailable")));
    expect(await w.settled()).toBe(1);
    w.stop();
  });
});
