// Fair outbound delivery end to end, with the real worker: one agent has ten endpoints whose receiver never answers
// (each attempt runs into the worker's 30 s timeout) and a backlog of events for them; another agent's endpoint
// answers at once. The live endpoint gets its event within a few seconds of the worker starting, not after the dead
// ones' timeouts, while the dead ones never have more than one attempt in flight each or two in all.
import { afterAll, beforeAll, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, type Daemon, owner, startDaemon, waitFor } from "../helpers/automation.ts";
import { createStoreTarget, pgUrl, type StoreTarget } from "../helpers/stores.ts";

const DEAD_ENDPOINTS = 10;
const TIMEOUT_S = 30;
/** Well under one dead attempt's timeout, which is what the live event waited at least before (D3: over 150 s). */
const LIVE_WITHIN_MS = 15_000;

let target: StoreTarget;
let env: Record<string, string>;
let worker: Daemon | undefined;
let receiver: ReturnType<typeof Bun.serve>;
/** Hanging requests, answered 503 at the end so the worker can stop without waiting out their timeouts. */
const hanging = new Set<() => void>();
const openByPath = new Map<string, number>();
let mostOpenDead = 0;
let mostOpenOneDead = 0;
let deadRequests = 0;
let liveAt: number | undefined;

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      await request.text();
      if (path === "/live") {
        liveAt ??= Date.now();
        return new Response(null, { status: 204 });
      }
      deadRequests++;
      openByPath.set(path, (openByPath.get(path) ?? 0) + 1);
      const open = [...openByPath.values()].reduce((a, b) => a + b, 0);
      mostOpenDead = Math.max(mostOpenDead, open);
      mostOpenOneDead = Math.max(mostOpenOneDead, openByPath.get(path) ?? 0);
      await new Promise<void>((resolve) => hanging.add(resolve));
      openByPath.set(path, (openByPath.get(path) ?? 1) - 1);
      return new Response("gave up", { status: 503 });
    },
  });
  target = await createStoreTarget(pgUrl ? "postgres" : "sqlite");
  env = automationEnv(target);
});

afterAll(async () => {
  for (const release of hanging) release();
  if (worker) {
    worker.process.kill("SIGTERM");
    await worker.process.catch(() => undefined);
  }
  await receiver?.stop(true);
  await target?.dispose();
});

const addEndpoint = (agent: TestAgent, path: string) =>
  cli(env, agent, "agent-webhook-cli add", [
    "--url",
    `http://127.0.0.1:${receiver.port}${path}`,
    "--events",
    "message",
    "--allow-private",
  ]);

test("ten never-answering endpoints of one agent do not hold back another agent's event", async () => {
  const stalled = await owner(env, "stalled");
  const prompt = await owner(env, "prompt");
  const sender = await owner(env, "sender");
  for (let i = 0; i < DEAD_ENDPOINTS; i++) await addEndpoint(stalled, `/dead/${i}`);
  await addEndpoint(prompt, "/live");
  // Thirty events for the dead endpoints, all older than the live one's.
  for (const n of [1, 2, 3]) await cli(env, sender, "agent-send-cli", ["--to", "stalled", "--body", `backlog ${n}`]);
  await cli(env, sender, "agent-send-cli", ["--to", "prompt", "--body", "the one that must not wait"]);

  worker = await startDaemon(env, ["--poll-ms", "50", "--webhook-timeout-seconds", String(TIMEOUT_S)]);
  const started = Date.now();
  await waitFor(async () => (liveAt !== undefined ? true : undefined), LIVE_WITHIN_MS, "the live endpoint's event");
  const waitedMs = (liveAt as number) - started;
  expect(waitedMs).toBeLessThan(LIVE_WITHIN_MS);
  // The dead endpoints got their share of the worker and no more: two attempts at once, one per endpoint.
  await waitFor(async () => (deadRequests >= 2 ? true : undefined), 5_000, "two attempts at the dead endpoints");
  expect(mostOpenDead).toBe(2);
  expect(mostOpenOneDead).toBe(1);
  console.info(`live event delivered ${waitedMs} ms after the worker started`);
});
