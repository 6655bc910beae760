// One outbound attempt against a local server: Standard Webhooks headers the reference library verifies, a redirect
// not followed (a failure), a slow receiver cut off by the time limit, and a host name that resolves to loopback
// refused before any request when the endpoint does not allow private addresses. The request goes to the addresses
// the one checked lookup returned (an injected resolver stands in for DNS).
import { networkInterfaces } from "node:os";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import { localAddresses } from "../../app/agent_computer/src/adapters/local-host.ts";
import { mintEndpointSecret } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import type { ClaimedWebhookEvent } from "../../app/agent_computer/src/store/port.ts";
import { postWebhook, type Resolve } from "../../app/agent_computer/src/worker/outbound-webhook-post.ts";

const requests: { path: string; headers: Record<string, string>; body: string }[] = [];
let server: ReturnType<typeof Bun.serve>;
const secret = mintEndpointSecret();

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      requests.push({ path, headers: Object.fromEntries(request.headers.entries()), body: await request.text() });
      if (path === "/redirect") return Response.redirect("http://127.0.0.1:1/elsewhere", 307);
      if (path === "/slow") await Bun.sleep(5000);
      return new Response(null, { status: 204 });
    },
  });
});
afterAll(() => server?.stop(true));

const claimed = (url: string, allowPrivate: boolean): ClaimedWebhookEvent => ({
  event: {
    id: "whevt_test1",
    endpointId: "whk_1",
    type: "message.received",
    payload: '{"type":"message.received","data":{"x":"é"}}',
    createdAt: 0,
    state: "pending",
    attempts: 1,
    nextAttemptAt: 0,
    finishedAt: null,
  },
  endpoint: {
    id: "whk_1",
    owner: "a",
    url,
    events: ["message"],
    secret,
    previousSecret: null,
    previousSecretUntil: null,
    allowPrivate,
    privateHost: allowPrivate ? "host-a" : null,
    state: "active",
    disabledReason: null,
    failedStreak: 0,
    createdAt: 0,
    updatedAt: 0,
  },
  attempt: 1,
  leaseToken: "t",
});
const post = (url: string, allowPrivate = true, timeoutMs = 10_000, resolve?: Resolve) =>
  postWebhook(claimed(url, allowPrivate), {
    timeoutMs,
    signal: new AbortController().signal,
    userAgent: "test",
    resolve,
    ownAddresses: localAddresses,
    now: Date.now,
  });

test("a delivery carries Standard Webhooks headers over the exact payload; 2xx is delivered", async () => {
  const result = await post(`http://127.0.0.1:${server.port}/ok`);
  expect(result).toMatchObject({ ok: true, statusCode: 204, errorKind: null });
  const request = requests.find((r) => r.path === "/ok");
  expect(request?.headers["webhook-id"]).toBe("whevt_test1");
  expect(new Webhook(secret).verify(request?.body as string, request?.headers as Record<string, string>)).toEqual({
    type: "message.received",
    data: { x: "é" },
  });
});

test("a redirect is not followed and counts as a failed attempt", async () => {
  expect(await post(`http://127.0.0.1:${server.port}/redirect`)).toMatchObject({
    ok: false,
    statusCode: 307,
    errorKind: "http_status",
  });
  expect(requests.filter((r) => r.path === "/elsewhere")).toEqual([]);
});

test("a receiver slower than the time limit is a timeout", async () => {
  expect(await post(`http://127.0.0.1:${server.port}/slow`, true, 200)).toMatchObject({
    ok: false,
    statusCode: null,
    errorKind: "timeout",
  });
});

test("a name resolving to loopback is refused before any request unless the endpoint allows private addresses", async () => {
  const before = requests.length;
  expect(await post(`http://localhost:${server.port}/named`, false)).toMatchObject({ ok: false, errorKind: "refused_address" });
  expect(requests.length).toBe(before);
  // Allowed, it is tried (whether localhost reaches this IPv4 server first depends on the host's resolver).
  expect((await post(`http://localhost:${server.port}/named`, true)).errorKind).not.toBe("refused_address");
});

test("the request goes to the addresses the one checked lookup returned, never to a second lookup's (DNS rebinding)", async () => {
  // hook.example resolves nowhere but in this resolver: a delivery that reaches the server used its answer.
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    return [{ address: "127.0.0.1", family: 4 }];
  };
  const result = await post(`http://hook.example:${server.port}/pinned`, true, 10_000, resolve);
  expect(result).toMatchObject({ ok: true, statusCode: 204 });
  expect(asked).toEqual(["hook.example"]);
  expect(requests.find((r) => r.path === "/pinned")?.headers.host).toBe(`hook.example:${server.port}`);
});

test("a name whose answer includes a private address is refused after one lookup, and nothing is sent", async () => {
  const before = requests.length;
  let lookups = 0;
  const resolve = async () => {
    lookups++;
    return [{ address: "127.0.0.1", family: 4 }];
  };
  const result = await post(`http://hook.example:${server.port}/private`, false, 10_000, resolve);
  expect(result).toMatchObject({ ok: false, statusCode: null, errorKind: "refused_address" });
  expect(lookups).toBe(1);
  expect(requests.length).toBe(before);
});

test("a name that does not resolve is a connection failure; an aborted attempt is aborted", async () => {
  const none = await post("http://nothing.invalid/x", true, 10_000, async () => []);
  expect(none).toMatchObject({ ok: false, statusCode: null, errorKind: "connection" });
  const abort = new AbortController();
  const aborted = postWebhook(claimed(`http://127.0.0.1:${server.port}/slow`, true), {
    timeoutMs: 10_000,
    signal: abort.signal,
    userAgent: "test",
    ownAddresses: localAddresses,
    now: Date.now,
  });
  setTimeout(() => abort.abort(), 100);
  expect(await aborted).toMatchObject({ ok: false, errorKind: "aborted" });
});

test("this host's own addresses are refused, whatever their range: a service on every interface answers on them", async () => {
  const everywhere = Bun.serve({ hostname: "0.0.0.0", port: 0, fetch: () => new Response(null, { status: 204 }) });
  try {
    const own = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry));
    for (const { address, family, internal } of own) {
      const resolve = async () => [{ address, family: family === "IPv4" ? 4 : 6 }];
      const url = `http://hook.example:${everywhere.port}/own`;
      const refused = await postWebhook(claimed(url, false), {
        timeoutMs: 5000,
        signal: new AbortController().signal,
        userAgent: "t",
        resolve,
        ownAddresses: localAddresses,
        now: Date.now,
      });
      expect(refused, address).toMatchObject({ ok: false, statusCode: null, errorKind: "refused_address" });
      // The threat is real: allowed, the same address reaches the server listening on every interface.
      if (family === "IPv4" && !internal) {
        const allowed = await postWebhook(claimed(url, true), {
          timeoutMs: 5000,
          signal: new AbortController().signal,
          userAgent: "t",
          resolve,
          ownAddresses: localAddresses,
          now: Date.now,
        });
        expect(allowed, address).toMatchObject({ ok: true, statusCode: 204 });
      }
    }
  } finally {
    everywhere.stop(true);
  }
});

test("an address of this host is refused even when it is globally reachable, in any spelling", async () => {
  const resolve = async () => [{ address: "2606:4700:0:0::1111", family: 6 }];
  const result = await postWebhook(claimed("http://hook.example/x", false), {
    timeoutMs: 2000,
    signal: new AbortController().signal,
    userAgent: "t",
    resolve,
    ownAddresses: () => ["127.0.0.1", "2606:4700::1111"],
    now: Date.now,
  });
  expect(result).toMatchObject({ ok: false, statusCode: null, errorKind: "refused_address" });
});
