// The console is private to whoever can read the state directory's console token, in process: the worker's real
// HTTP server (console and webhook services on one SQLite store) asked the way a browser or another user would.
// A page without the token or its cookie is 401 with no data; the link is traded for an HttpOnly, SameSite=Strict
// cookie; webhook deliveries still need nothing but their signature.
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { consoleLink, cookieName, linkCommand, tokenMatches } from "../../app/agent_computer/src/console/access.ts";
import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import { createJob } from "../../app/agent_computer/src/domain/automation/jobs.ts";
import { createWebhook } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import { signStandard } from "../../app/agent_computer/src/domain/automation/webhook-verify.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { consoleTokenFile, ensureConsoleToken } from "../../app/agent_computer/src/local/console-token.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { consoleService, consoleStartFields } from "../../app/agent_computer/src/worker/console.ts";
import { listen, localUrlOf } from "../../app/agent_computer/src/worker/http.ts";
import { webhookService } from "../../app/agent_computer/src/worker/inbound-webhooks.ts";
import { createLogger } from "../../app/agent_computer/src/worker/log.ts";
import { Nudge } from "../../app/agent_computer/src/worker/nudge.ts";
import type { WorkerContext } from "../../app/agent_computer/src/worker/worker-context.ts";
import { jobDir } from "../helpers/automation.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

const LABEL = "nightly-report-label-7f3a";
const HOOK_LABEL = "deploy-hook-label-91c2";

let target: StoreTarget;
let store: Store;
let server: Server<undefined>;
let base = "";
let token = "";
let jobId = "";
let hook: { id: string; secret: string };

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers, redirect: "manual" });
const cookie = () => ({ cookie: `${cookieName(base)}=${token}` });

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  store = await target.open();
  const deps: Deps = { store, now: () => Date.now(), host: "test-host", newId };
  const owner = await checkIn(deps, { agentId: "alice", token: undefined, ttlSeconds: 86_400 });
  const call = { agentId: "alice", token: owner.agent_token as string };
  jobId = (
    await createJob(deps, { ...call, dir: jobDir("console.log(1)"), label: LABEL, wakeOnFailure: false, timeoutSeconds: 60 })
  ).id;
  const stateDir = mkdtempSync(join(tmpdir(), "ac-console-state-"));
  token = ensureConsoleToken(stateDir);
  let url = "";
  const ctx: WorkerContext = {
    workerId: "wrk_test",
    store,
    options: {
      host: "127.0.0.1",
      port: 0,
      concurrency: 1,
      once: false,
      leaseSeconds: 30,
      pollMs: 250,
      idlePollMs: 30_000,
      drainSeconds: 1,
      skillsDir: "",
      webhooks: { backoffMs: [1000], disableAfter: 5, timeoutMs: 10_000, retentionDays: 7 },
    },
    paths: resolvePaths({ AGENT_COMPUTER_HOME: stateDir }),
    // Neither service starts scripts.
    install: { root: "", bunPath: "", standalone: false, sdkPreload: "", mcporterCli: "", defaultSkillsDir: "" },
    env: {},
    log: createLogger(() => {}),
    deps,
    nudge: { scheduler: new Nudge(), executor: new Nudge() },
    localUrl: () => url,
    consoleToken: token,
    consoleUser: "tester",
  };
  server = listen(ctx, [webhookService(ctx), consoleService(ctx)]);
  url = localUrlOf(server, "127.0.0.1");
  base = url;
  hook = await createWebhook(deps, {
    ...call,
    label: HOOK_LABEL,
    provider: "standard",
    maxBodyBytes: 65_536,
    jobId,
    baseUrl: url,
  });
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await store?.close();
  await target?.dispose();
});

/** What must never reach a browser without the token: the store's contents. */
const leaks = (body: string): string[] =>
  [LABEL, HOOK_LABEL, jobId, hook.id, "alice", token].filter((secret) => body.includes(secret));

describe("console pages without the console token", () => {
  test("no token: 401 on every page, with no data and the command that prints the link", async () => {
    for (const path of ["/", "/triggers", "/agents"]) {
      const response = await get(path);
      const body = await response.text();
      expect(response.status, path).toBe(401);
      expect(leaks(body), path).toEqual([]);
      expect(body).toContain(`agent-computer-worker --console-url --port ${new URL(base).port}`);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
  });

  test("a navigation from another site gets one refresh (its cookie is withheld there), any other request none", async () => {
    const navigate = { "sec-fetch-mode": "navigate" };
    const crossSite = await (await get("/", { ...navigate, "sec-fetch-site": "cross-site" })).text();
    expect(crossSite).toContain('<meta http-equiv="refresh" content="0">');
    expect(leaks(crossSite)).toEqual([]);
    for (const site of ["same-origin", "none"]) {
      expect(await (await get("/", { ...navigate, "sec-fetch-site": site })).text(), site).not.toContain("http-equiv");
    }
    expect(await (await get("/")).text()).not.toContain("http-equiv");
  });

  test("a wrong, empty or same-length token is 401, in the link and in the cookie", async () => {
    const sameLength = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const wrong of [sameLength, "", "x", `${token}x`]) {
      const linked = await get(`/?token=${encodeURIComponent(wrong)}`);
      expect(linked.status, wrong).toBe(401);
      expect(linked.headers.get("set-cookie")).toBeNull();
      expect(leaks(await linked.text())).toEqual([]);
      const cookied = await get("/", { cookie: `${cookieName(base)}=${wrong}` });
      expect(cookied.status, wrong).toBe(401);
    }
  });

  test("the token under another port's cookie name does not open this console", async () => {
    expect((await get("/", { cookie: `agent_computer_console_1=${token}` })).status).toBe(401);
  });

  test("a wrong link is refused even beside a valid cookie", async () => {
    expect((await get("/?token=stale", cookie())).status).toBe(401);
  });
});

describe("signing in with the link", () => {
  test("a valid link: 303 to the same page without the token, and an HttpOnly SameSite=Strict cookie for /", async () => {
    const response = await get(`/triggers?token=${token}&view=all`);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/triggers?view=all");
    const setCookie = response.headers.get("set-cookie") ?? "";
    const parts = setCookie.split(";").map((p) => p.trim());
    expect(parts[0]).toBe(`${cookieName(base)}=${token}`);
    expect(parts).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/"]));
    expect(parts.some((p) => p.startsWith("Max-Age="))).toBe(true);
    expect(await response.text()).toBe("");
  });

  test("the link printed for this worker is that valid link", async () => {
    const response = await fetch(consoleLink(base, token), { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
  });

  test("the cookie opens every page, with its data", async () => {
    const jobs = await (await get("/", cookie())).text();
    expect(jobs).toContain(LABEL);
    const triggers = await get("/triggers", cookie());
    expect(triggers.status).toBe(200);
    expect(await triggers.text()).toContain(hook.id);
    const agents = await get("/agents", { cookie: `other=1; ${cookieName(base)}=${token}; more=2` });
    expect(agents.status).toBe(200);
    expect(await agents.text()).toContain("alice");
  });
});

describe("what stays open without the console token", () => {
  test("the stylesheet and the refresh script (no data in them)", async () => {
    for (const path of ["/console/console.css", "/console/live-refresh.js"]) expect((await get(path)).status, path).toBe(200);
  });

  test("a signed webhook delivery is accepted with no cookie and no token", async () => {
    const body = JSON.stringify({ action: "opened" });
    const ts = Math.floor(Date.now() / 1000);
    const response = await fetch(`${base}/hooks/${hook.id}`, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_console_access",
        "webhook-timestamp": String(ts),
        "webhook-signature": signStandard(hook.secret, "msg_console_access", ts, body),
      },
    });
    expect(response.status).toBe(202);
    expect(((await response.json()) as { run_id?: string }).run_id).toMatch(/^run_/);
  });
});

describe("the console token file", () => {
  test("made 0600 on first use and the same token afterwards", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "ac-console-token-")), "state");
    const first = ensureConsoleToken(dir);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(consoleTokenFile(dir)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(ensureConsoleToken(dir)).toBe(first);
    expect(readFileSync(consoleTokenFile(dir), "utf8").trim()).toBe(first);
  });

  test("a token others could read, or a damaged file, is replaced by a new 0600 one", () => {
    const dir = mkdtempSync(join(tmpdir(), "ac-console-token-"));
    const first = ensureConsoleToken(dir);
    chmodSync(consoleTokenFile(dir), 0o644);
    const second = ensureConsoleToken(dir);
    expect(second).not.toBe(first);
    expect(statSync(consoleTokenFile(dir)).mode & 0o777).toBe(0o600);
    writeFileSync(consoleTokenFile(dir), "not a token\n", { mode: 0o600 });
    const third = ensureConsoleToken(dir);
    expect(third).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(third).not.toBe(second);
  });

  test("tokens compare whole: a prefix, an extension or nothing is no match", () => {
    expect(tokenMatches(token, token)).toBe(true);
    for (const other of [undefined, "", token.slice(0, 10), `${token}=`, token.toUpperCase()]) {
      expect(tokenMatches(other, token)).toBe(false);
    }
  });
});

describe("where the link is shown", () => {
  test("the start line carries the link only when stderr is a terminal; otherwise the command that prints it", () => {
    expect(consoleStartFields("http://127.0.0.1:8787", "T0KEN", true)).toEqual({
      console_url: "http://127.0.0.1:8787/",
      console_link: "http://127.0.0.1:8787/?token=T0KEN",
    });
    const logged = consoleStartFields("http://127.0.0.1:8787", "T0KEN", false);
    expect(logged).toEqual({
      console_url: "http://127.0.0.1:8787/",
      console_link_command: "agent-computer-worker --console-url",
    });
    expect(JSON.stringify(logged)).not.toContain("T0KEN");
  });

  test("the command names the port and host that differ from the defaults", () => {
    expect(linkCommand("http://127.0.0.1:8788")).toBe("agent-computer-worker --console-url --port 8788");
    expect(linkCommand("http://[::1]:8787")).toBe("agent-computer-worker --console-url --host ::1");
    expect(linkCommand("http://localhost:9000")).toBe("agent-computer-worker --console-url --port 9000 --host localhost");
  });
});
