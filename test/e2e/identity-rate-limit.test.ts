// Rate limits per name and per host on registration and on sends, through separate processes (the counters live
// in the store), on every store: RATE_LIMITED, exit 6, retry_after_s; configurable; rejected calls do not count.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { BinResult } from "../helpers/bin.ts";
import { errorOf, identityEnv, json, register, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const expectLimited = (r: BinResult, scope: "name" | "host", windowS: number): void => {
  expect(r.exitCode).toBe(6);
  const error = errorOf(r);
  expect(error).toMatchObject({ code: "RATE_LIMITED", scope });
  expect(error.retry_after_s).toBeGreaterThanOrEqual(1);
  expect(error.retry_after_s).toBeLessThanOrEqual(windowS);
  expect(error.hint).toContain(`retry after ${error.retry_after_s}s`);
};

/** The counters use fixed windows; a test that must stay inside one waits for a fresh one when too close to its end. */
const awayFromWindowEdge = async (windowS: number, needS: number): Promise<void> => {
  const left = windowS * 1000 - (Date.now() % (windowS * 1000));
  if (left < needS * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
};

describe.each(storeNames)("rate limits on %s", (storeName) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
  });
  afterAll(() => target.dispose());

  test("registrations per name: over the limit is RATE_LIMITED; another name is not affected", async () => {
    await awayFromWindowEdge(3600, 60);
    const env = identityEnv(target, { AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "2/3600", AGENT_COMPUTER_HOST_ID: "rl-name-host" });
    await registered(env, "rl-a");
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["rl-a"]);
    await registered(env, "rl-a");
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["rl-a"]);
    expectLimited(await register(env, "rl-a"), "name", 3600);
    expect((await register(env, "rl-b")).exitCode).toBe(0);
  });

  test("registrations per host: counted per machine id, whatever the names", async () => {
    await awayFromWindowEdge(3600, 60);
    const env = identityEnv(target, { AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "2/3600", AGENT_COMPUTER_HOST_ID: "rl-host-1" });
    await registered(env, "rl-h1");
    await registered(env, "rl-h2");
    expectLimited(await register(env, "rl-h3"), "host", 3600);
    expect((await register({ ...env, AGENT_COMPUTER_HOST_ID: "rl-host-2" }, "rl-h3")).exitCode).toBe(0);
  });

  test("a rejected registration is not counted", async () => {
    await awayFromWindowEdge(3600, 60);
    const env = identityEnv(target, { AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "1/3600", AGENT_COMPUTER_HOST_ID: "rl-rej" });
    const bad = await register(env, "rl-rejected", { args: ["--agent-pid", "4194303"] });
    expect(errorOf(bad).code).toBe("INVALID_INPUT");
    expect((await register(env, "rl-rejected")).exitCode).toBe(0);
  });

  test("sends per sending agent, and replays of an idempotency key are free", async () => {
    await awayFromWindowEdge(3600, 60);
    const env = identityEnv(target, { AGENT_COMPUTER_RATE_SEND_PER_NAME: "2/3600", AGENT_COMPUTER_HOST_ID: "rl-send" });
    await registered(env, "rl-from");
    await registered(env, "rl-from-2");
    await registered(env, "rl-to");
    const send = (from: string, key?: string) =>
      json("agent-send-cli", ["--from", from, "--to", "rl-to", "--body", "hi", ...(key ? ["--idempotency-key", key] : [])], env);
    expect((await send("rl-from", "k1")).exitCode).toBe(0);
    expect((await send("rl-from", "k1")).json()).toMatchObject({ replayed: true });
    expect((await send("rl-from")).exitCode).toBe(0);
    const limited = await send("rl-from");
    expectLimited(limited, "name", 3600);
    expect((await send("rl-from-2")).exitCode).toBe(0);
    const [row] = await target.sql("SELECT COUNT(*) AS n FROM messages WHERE sender = $1", ["rl-from"]);
    expect(Number(row?.n)).toBe(2);
  });

  test("sends per host", async () => {
    await awayFromWindowEdge(3600, 60);
    const env = identityEnv(target, { AGENT_COMPUTER_RATE_SEND_PER_HOST: "2/3600", AGENT_COMPUTER_HOST_ID: "rl-send-host" });
    await registered(env, "rl-s1");
    await registered(env, "rl-s2");
    const send = (from: string) => json("agent-send-cli", ["--from", from, "--to", "rl-to", "--body", "hi"], env);
    expect((await send("rl-s1")).exitCode).toBe(0);
    expect((await send("rl-s2")).exitCode).toBe(0);
    expectLimited(await send("rl-s1"), "host", 3600);
  });

  test("defaults apply when nothing is set, and a malformed setting is INVALID_INPUT naming the variable", async () => {
    const { AGENT_COMPUTER_RATE_REGISTER_PER_NAME: _n, AGENT_COMPUTER_RATE_REGISTER_PER_HOST: _h, ...rest } = identityEnv(target);
    const env = { ...rest, AGENT_COMPUTER_HOST_ID: "rl-defaults" };
    // The default per-name limit is 20 a minute: 19 are already counted in this window, the 20th passes, the 21st not.
    await awayFromWindowEdge(60, 10);
    const windowStart = Math.floor(Date.now() / 60_000) * 60_000;
    await target.sql("INSERT INTO rate_buckets (bucket, window_start, hits) VALUES ($1, $2, 19)", [
      "register:name:rl-default",
      windowStart,
    ]);
    expect((await register(env, "rl-default")).exitCode).toBe(0);
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["rl-default"]);
    expectLimited(await register(env, "rl-default"), "name", 60);
    const bad = await register({ ...env, AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "lots" }, "rl-other");
    expect(bad.exitCode).toBe(2);
    expect(errorOf(bad).message).toContain("AGENT_COMPUTER_RATE_REGISTER_PER_NAME");
  });
});
