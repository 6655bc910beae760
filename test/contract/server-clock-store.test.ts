// One clock across hosts that share PostgreSQL (store/server-clock.ts): two hosts whose clocks are five minutes off,
// one behind and one ahead, write and judge a presence ttl, the mail waiting on it, a file reservation and a
// checkback through the real composition root against a real PostgreSQL, and every time lands on the server's
// clock: nothing expires early or lives late. The skew itself is measured and reported past its bound.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import createCheckback, { checkbackOptionsSchema } from "../../app/agent_computer/src/cli/automation/create-checkback-cli.ts";
import type { CommandDef } from "../../app/agent_computer/src/cli/kernel/command.ts";
import type { CommandContext } from "../../app/agent_computer/src/cli/kernel/command-context.ts";
import { depsFor, invokeCommand } from "../../app/agent_computer/src/cli/kernel/composition-root.ts";
import { readLimited } from "../../app/agent_computer/src/cli/kernel/input.ts";
import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import { consumeDueTriggers } from "../../app/agent_computer/src/domain/automation/due-triggers.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { checkPatterns } from "../../app/agent_computer/src/domain/reservations/read.ts";
import { reserve } from "../../app/agent_computer/src/domain/reservations/reserve.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { measureServerSkew, SKEW_BOUND_MS } from "../../app/agent_computer/src/store/server-clock.ts";
import { createLogger } from "../../app/agent_computer/src/worker/log.ts";
import { watchServerClock } from "../../app/agent_computer/src/worker/server-clock-watch.ts";
import { createStoreTarget, pgUrl, type StoreTarget } from "../helpers/stores.ts";

const SKEW_MS = 5 * 60_000;
/** A stored time is right when it is within this of the server's clock plus its length (a round trip, a slow CI). */
const SLACK_MS = 3000;

describe.skipIf(!pgUrl)("hosts whose clocks are five minutes off share one clock on PostgreSQL", () => {
  let target: StoreTarget;
  let store: Store;
  const tokens = new Map<string, string>();

  /** A host whose clock reads `skewMs` off the real time, as the kernel builds a command's context. */
  const hostCtx = (skewMs: number, env: Record<string, string> = {}): CommandContext => {
    const full = { ...target.env, AGENT_COMPUTER_HOST_ID: `host${skewMs}`, ...env };
    return {
      env: full,
      paths: resolvePaths(full),
      now: () => Date.now() + skewMs,
      store: async () => store,
      readInput: readLimited,
    };
  };
  /** That host's deps, built by the composition root on a live clock (as the worker and waiting commands have). */
  const hostDeps = async (skewMs: number): Promise<Deps> =>
    (await depsFor({ needs: { deps: "store", clock: "live" } } as unknown as CommandDef, {}, hostCtx(skewMs))) as Deps;
  const serverNow = async () =>
    Number((await target.sql("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms"))[0]?.ms);
  const enter = async (deps: Deps, agentId: string, ttlSeconds: number) => {
    const r = await checkIn(deps, { agentId, token: tokens.get(agentId), ttlSeconds });
    if (r.agent_token) tokens.set(agentId, r.agent_token);
  };

  beforeAll(async () => {
    target = await createStoreTarget("postgres");
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target?.dispose();
  });

  test("the skew is measured against the server and reported past its documented bound", async () => {
    const behind = await measureServerSkew(store, () => Date.now() - SKEW_MS);
    expect(Math.abs((behind?.offset_ms ?? 0) - SKEW_MS)).toBeLessThan(SLACK_MS);
    expect(behind).toMatchObject({ bound_ms: SKEW_BOUND_MS, within_bound: false });
    expect(await measureServerSkew(store)).toMatchObject({ within_bound: true });
    const lines: string[] = [];
    const watch = await watchServerClock(
      store,
      createLogger((line) => lines.push(line)),
      () => Date.now() + SKEW_MS,
    );
    watch.stop();
    expect(Math.abs(watch.offset.ms + SKEW_MS)).toBeLessThan(SLACK_MS);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: "warn", offset_ms: watch.offset.ms, bound_ms: SKEW_BOUND_MS }),
    ]);
  });

  test("a session a slow host checks in, and the mail waiting on it, outlive a fast host's look", async () => {
    const slow = await hostDeps(-SKEW_MS);
    const fast = await hostDeps(SKEW_MS);
    await enter(slow, "slowpoke", 120);
    await enter(fast, "speedy", 3600);
    await sendMessage(fast, {
      from: "speedy",
      token: tokens.get("speedy"),
      recipients: { kind: "to", agentIds: ["slowpoke"] },
      body: "hi",
    });
    // Every mesh write ends the sessions whose ttl ran out on its clock: the fast host writes once more.
    await enter(fast, "speedy", 3600);
    const [session] = await target.sql("SELECT expires_at, ended_at FROM sessions WHERE agent_name = 'slowpoke'");
    expect(session?.ended_at).toBeNull();
    expect(Math.abs(Number(session?.expires_at) - ((await serverNow()) + 120_000))).toBeLessThan(SLACK_MS);
    const states = await target.sql(
      "SELECT d.state FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.sender = 'speedy'",
    );
    expect(states.map((row) => row.state)).not.toContain("expired_undelivered");
  });

  test("a reservation a slow host takes still holds when a fast host checks it", async () => {
    const slow = await hostDeps(-SKEW_MS);
    const fast = await hostDeps(SKEW_MS);
    await enter(slow, "holder", 3600);
    const patterns = ["src/**"];
    await reserve(slow, {
      agentId: "holder",
      token: tokens.get("holder"),
      repoKey: "repo-1",
      patterns,
      exclusive: true,
      ttlS: 120,
      reason: "edit",
    });
    const [row] = await target.sql("SELECT expires_at FROM file_reservations WHERE holder = 'holder'");
    expect(Math.abs(Number(row?.expires_at) - ((await serverNow()) + 120_000))).toBeLessThan(SLACK_MS);
    const check = await checkPatterns(fast, { repoKey: "repo-1", agentId: "other", patterns, exclusive: true });
    expect(check.clear).toBe(false);
  });

  test("a checkback a slow host asks for in a minute is due in a minute: a fast host's worker does not fire it yet", async () => {
    const slow = await hostDeps(-SKEW_MS);
    await enter(slow, "asker", 3600);
    const options = checkbackOptionsSchema.parse({ agentId: "asker", in: "60s" });
    const ctx = hostCtx(-SKEW_MS, { RELAY_AGENT_TOKEN: tokens.get("asker") as string });
    const made = (await invokeCommand(createCheckback, options, ctx)) as { id: string };
    const [row] = await target.sql("SELECT due_at FROM automation_triggers WHERE id = $1", [made.id]);
    expect(Math.abs(Number(row?.due_at) - ((await serverNow()) + 60_000))).toBeLessThan(SLACK_MS);
    const scan = await consumeDueTriggers(await hostDeps(SKEW_MS), 10);
    expect(scan.fired).toEqual([]);
  });
});
