// Outbound webhooks end to end: two real worker daemons on one store post an agent's events to a local receiver that
// verifies every request with the standardwebhooks reference library. One endpoint fails the first attempt of every
// event on purpose (500): each event is retried with the same webhook-id, and succeeds exactly once however many
// workers run. Another always fails: after two events used every attempt it is disabled and the owner finds a notice
// in its inbox. No request, log line or attempt record carries a message body or the secret.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import {
  automationEnv,
  cli,
  consoleLinkFor,
  createJob,
  type Daemon,
  jobDir,
  owner,
  startDaemon,
  waitFor,
} from "../helpers/automation.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, pgUrl, type StoreTarget } from "../helpers/stores.ts";

const BODY = "the-secret-body-text-7f3a";
const WORKER_FLAGS = ["--poll-ms", "50", "--webhook-backoff", "300ms,300ms", "--webhook-disable-after", "2"];

interface Received {
  path: string;
  id: string;
  type: string;
  status: number;
  verified: boolean;
  body: string;
  headers: Record<string, string>;
}

let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;
let bob: TestAgent;
let workers: Daemon[] = [];
let receiver: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
const secrets: Record<string, string> = {};
const failedOnce = new Set<string>();

interface EndpointJson {
  id: string;
  secret: string;
  state: string;
  disabled_reason: string | null;
}

const addEndpoint = async (path: string, events: string): Promise<EndpointJson> => {
  const url = `http://127.0.0.1:${receiver.port}${path}`;
  const created = await cli<EndpointJson>(env, alice, "agent-webhook-cli add", [
    "--url",
    url,
    "--events",
    events,
    "--allow-private",
  ]);
  secrets[path] = created.secret;
  return created;
};

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      const body = await request.text();
      const headers = Object.fromEntries(request.headers.entries());
      let verified = true;
      try {
        new Webhook(secrets[path] ?? "whsec_AAAA").verify(body, headers);
      } catch {
        verified = false;
      }
      const id = headers["webhook-id"] ?? "";
      let status = 204;
      if (!verified) status = 401;
      else if (path === "/dead") status = 500;
      else if (!failedOnce.has(id)) {
        failedOnce.add(id);
        status = 500;
      }
      const type = verified ? String((JSON.parse(body) as { type?: string }).type) : "?";
      received.push({ path, id, type, status, verified, body, headers });
      return new Response(status === 204 ? null : "try again", { status });
    },
  });
  // Two workers on one PostgreSQL store is the case the leases are for; without PostgreSQL, one SQLite file.
  target = await createStoreTarget(pgUrl ? "postgres" : "sqlite");
  env = automationEnv(target);
  alice = await owner(env, "alice");
  bob = await owner(env, "bob");
});

afterAll(async () => {
  for (const w of workers) w.process.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.process.catch(() => undefined)));
  await receiver?.stop(true);
  await target?.dispose();
});

test("events reach the receiver signed, retried after a failure with the same id, delivered exactly once each", async () => {
  const flaky = await addEndpoint("/flaky", "message,task,run_failed");
  const blocked = await owner(env, "mallory");
  await cli(env, alice, "agent-contacts-cli block", ["--contact", "mallory"]);
  workers = [await startDaemon(env, WORKER_FLAGS), await startDaemon(env, WORKER_FLAGS)];

  const refused = await runBin(
    "agent-send-cli",
    ["--from", blocked.id, "--token-file", blocked.tokenFile, "--to", "alice", "--body", BODY, "--json"],
    { env },
  );
  expect(refused.exitCode).toBe(4);
  for (const n of [1, 2]) await cli(env, bob, "agent-send-cli", ["--to", "alice", "--body", `${BODY} ${n}`]);
  const job = await createJob(env, alice, jobDir("throw new Error('private failure text')"));
  await cli(env, alice, "run-automation-job-cli", ["--job-id", job]);

  // Two messages, and a run failure; the run failure is also a notice in alice's inbox when the job asks for it.
  const delivered = () => received.filter((r) => r.path === "/flaky" && r.status === 204);
  await waitFor(
    async () => (delivered().some((r) => r.type === "automation_run.failed") && delivered().length >= 3 ? true : undefined),
    60_000,
    "the flaky endpoint to receive two messages and the run failure",
  );
  // Give any duplicate a chance to show before counting: the workers' claims of these events are all settled.
  await waitFor(async () => {
    const list = await cli<{ endpoints: { id: string; events_by_state: { pending: number } }[] }>(
      env,
      alice,
      "agent-webhook-cli list",
      [],
    );
    return list.endpoints.find((e) => e.id === flaky.id)?.events_by_state.pending === 0 ? true : undefined;
  });

  const flakyRequests = received.filter((r) => r.path === "/flaky");
  expect(flakyRequests.every((r) => r.verified)).toBe(true);
  const ids = [...new Set(flakyRequests.map((r) => r.id))];
  for (const id of ids) {
    // Each event: first attempt 500 (on purpose), then exactly one success, with the same webhook-id.
    expect(flakyRequests.filter((r) => r.id === id).map((r) => r.status)).toEqual([500, 204]);
  }
  const messages = delivered()
    .filter((r) => r.type === "message.received")
    .map((r) => JSON.parse(r.body).data);
  expect(messages.map((m) => m.sender)).toEqual(["bob", "bob"]);
  expect(messages.every((m) => m.agent_id === "alice" && typeof m.message_id === "string")).toBe(true);
  for (const r of received) {
    expect(r.body).not.toContain(BODY);
    expect(r.body).not.toContain("private failure text");
  }

  const deliveries = await cli<{ attempts: { event_id: string; attempt: number; outcome: string; status_code: number }[] }>(
    env,
    alice,
    "agent-webhook-cli deliveries",
    ["--endpoint-id", flaky.id, "--limit", "100"],
  );
  for (const id of ids) {
    const attempts = deliveries.attempts.filter((a) => a.event_id === id).sort((a, b) => a.attempt - b.attempt);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [1, "failed", 500],
      [2, "delivered", 204],
    ]);
  }
});

test("an endpoint that keeps failing is disabled after two events used every attempt, and its owner is told", async () => {
  const dead = await addEndpoint("/dead", "message");
  for (const n of [3, 4]) await cli(env, bob, "agent-send-cli", ["--to", "alice", "--body", `${BODY} ${n}`]);
  const endpointState = async () =>
    (await cli<{ endpoints: EndpointJson[] }>(env, alice, "agent-webhook-cli list", [])).endpoints.find((e) => e.id === dead.id);
  const disabled = await waitFor(async () => {
    const e = await endpointState();
    return e?.state === "disabled" ? e : undefined;
  }, 60_000);
  expect(disabled.disabled_reason).toContain("HTTP 500");
  const deadRequests = received.filter((r) => r.path === "/dead");
  // Two events, three attempts each (two retries), every one signed; then nothing more.
  expect(deadRequests.every((r) => r.verified && r.status === 500)).toBe(true);
  expect(new Set(deadRequests.map((r) => r.id)).size).toBe(2);
  expect(deadRequests).toHaveLength(6);

  const inbox = await cli<{ messages: { from: string; body: string }[] }>(env, alice, "agent-inbox-cli", ["--limit", "100"]);
  const notices = inbox.messages.filter((m) => m.from === "agent-computer" && m.body.includes(dead.id));
  expect(notices).toHaveLength(1);
  expect(notices[0]?.body).toMatch(/disabled/);
  expect(notices[0]?.body).not.toContain(dead.secret);

  // Disabled: a new message is not sent to it.
  await cli(env, bob, "agent-send-cli", ["--to", "alice", "--body", `${BODY} 5`]);
  await waitFor(
    async () => (received.filter((r) => r.path === "/flaky" && r.status === 204).length >= 6 ? true : undefined),
    60_000,
  );
  expect(received.filter((r) => r.path === "/dead")).toHaveLength(6);

  // The console's Webhooks page shows the endpoints and their attempts, never a secret.
  const worker = workers[0] as Daemon;
  const signIn = await fetch(await consoleLinkFor(env, worker.url), { redirect: "manual" });
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await (await fetch(`${worker.url}/webhooks`, { headers: { cookie } })).text();
  expect(page).toContain(`data-endpoint-id="${dead.id}"`);
  expect(page).toMatch(/state-disabled/);
  // Every attempt so far is a row: six to the dead endpoint and more to the flaky one.
  expect(page.split('<td data-field="started">').length - 1).toBeGreaterThan(6);
  for (const secret of Object.values(secrets)) expect(page).not.toContain(secret);
  expect(page).not.toContain(BODY);

  for (const w of workers) {
    expect(w.stderr()).not.toContain(BODY);
    expect(w.stderr()).not.toContain(dead.secret);
    expect(w.stderr()).not.toContain("/dead");
  }
});

test("another agent's endpoint is not found (exit 5) and a wrong token is refused (exit 3); neither changes anything", async () => {
  const { endpoints } = await cli<{ endpoints: EndpointJson[] }>(env, alice, "agent-webhook-cli list", []);
  const id = endpoints[0]?.id as string;
  const byBob = await runBin(
    "agent-webhook-cli",
    ["remove", "--agent-id", "bob", "--token-file", bob.tokenFile, "--endpoint-id", id, "--json"],
    {
      env,
    },
  );
  expect(byBob.exitCode).toBe(5);
  expect(JSON.parse(byBob.stderr).error.code).toBe("NOT_FOUND");
  const wrongToken = await runBin(
    "agent-webhook-cli",
    ["remove", "--agent-id", "alice", "--token-file", bob.tokenFile, "--endpoint-id", id],
    {
      env,
    },
  );
  expect(wrongToken.exitCode).toBe(3);
  const after = await cli<{ endpoints: EndpointJson[] }>(env, alice, "agent-webhook-cli list", []);
  expect(after.endpoints.map((e) => e.id)).toEqual(endpoints.map((e) => e.id));
});

test("rotate-secret: the new secret is shown once and signs at once; the old one keeps verifying during the overlap", async () => {
  const { endpoints } = await cli<{ endpoints: EndpointJson[] }>(env, alice, "agent-webhook-cli list", []);
  const flaky = endpoints.find((e) => e.state === "active") as EndpointJson;
  const oldSecret = secrets["/flaky"] as string;
  const rotated = await cli<{ secret: string; previous_secret_until: string }>(env, alice, "agent-webhook-cli rotate-secret", [
    "--endpoint-id",
    flaky.id,
  ]);
  expect(rotated.secret).toMatch(/^whsec_/);
  expect(rotated.secret).not.toBe(oldSecret);
  // The receiver now verifies with the new secret only.
  secrets["/flaky"] = rotated.secret;
  const before = received.length;
  await cli(env, bob, "agent-send-cli", ["--to", "alice", "--body", `${BODY} 6`]);
  const request = await waitFor(async () => received.slice(before).find((r) => r.path === "/flaky" && r.status === 204));
  expect(request.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
  expect(() => new Webhook(oldSecret).verify(request.body, request.headers)).not.toThrow();
  expect(() => new Webhook(rotated.secret).verify(request.body, request.headers)).not.toThrow();
  const listed = await runBin("agent-webhook-cli", ["list", "--agent-id", "alice", "--token-file", alice.tokenFile, "--json"], {
    env,
  });
  expect(listed.stdout).not.toContain(rotated.secret);
  expect(listed.stdout).not.toContain(oldSecret);
});

test("a worker deletes events that ended longer ago than --webhook-retention-days, with their attempts; the rest stay", async () => {
  const countOf = async (sql: string, params: unknown[] = []) => Number((await target.sql(sql, params))[0]?.n);
  const ended = "SELECT COUNT(*) AS n FROM webhook_events WHERE state IN ('delivered', 'failed')";
  const before = await countOf(ended);
  expect(before).toBeGreaterThan(2);
  // Two ended events age past a week (with their attempts); every other row is as the tests above left it.
  const aged = (await target.sql("SELECT id FROM webhook_events WHERE state = 'delivered' ORDER BY id LIMIT 2")).map((r) =>
    String(r.id),
  );
  for (const id of aged)
    await target.sql("UPDATE webhook_events SET finished_at = finished_at - $2 WHERE id = $1", [id, 8 * 86_400_000]);
  const attemptsBefore = await countOf("SELECT COUNT(*) AS n FROM webhook_attempts");
  const agedAttempts = await countOf("SELECT COUNT(*) AS n FROM webhook_attempts WHERE event_id IN ($1, $2)", aged);

  const once = await runBin("agent-computer-worker", ["--once", "--webhook-retention-days", "7", "--json"], { env });
  expect(once.exitCode, once.stderr).toBe(0);
  expect(once.stderr).toContain('"pruned":2');
  expect(await countOf(ended)).toBe(before - 2);
  expect(await countOf("SELECT COUNT(*) AS n FROM webhook_events WHERE id IN ($1, $2)", aged)).toBe(0);
  expect(await countOf("SELECT COUNT(*) AS n FROM webhook_attempts")).toBe(attemptsBefore - agedAttempts);
});
