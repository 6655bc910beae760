// The console in a real browser: a worker daemon on a free loopback port serves a temp store's jobs, triggers
// and agents to Debian's headless Chromium, once with JavaScript and once without. Script output that holds
// markup shows as text and never runs; secrets never reach a page; pages stay live both ways. Each browser signs in
// once with the link agent-computer-worker --console-url prints; a browser that has not gets the 401 page. Its owner
// writes from it as human-<user>: a message, then a reply to an agent's answer; a form posted by a page of another
// origin, a POST without the form's token and one without the cookie are refused and store nothing.
import { mkdirSync, mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, consoleLinkFor, type Daemon, jobDir, startDaemon } from "../helpers/automation.ts";
import { repoRoot } from "../helpers/bin.ts";
import { type Browser, launchChromium } from "../helpers/chromium.ts";
import { forgerSite } from "../helpers/forger-site.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

const STATUS = 'reviewing <b>PR #12</b> & "flaky" tests';
const LABEL = "<em>nightly</em> report";
const HOOK_LABEL = "<i>deploy</i> hook";
const API_KEY = "sk-live-0123456789abcdef";
const MAIN = `console.log("<script>alert(1)</script>");
console.log("hello from stdout");
console.error("<img src=x onerror=alert(2)> warning on stderr");
console.log("key=" + process.env.API_KEY);
process.exit(3);
`;

let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;
let worker: Daemon;
let withJs: Browser;
let withoutJs: Browser;
let jobId: string;
let runId: string;
let webhook: { id: string; secret: string };
let link: string;

interface Opened {
  page: Page;
  dialogs: string[];
  problems: string[];
  headers: Record<string, string>;
}

const open = async (browser: Browser, path: string): Promise<Opened> => {
  const page = await browser.context.newPage();
  const dialogs: string[] = [];
  const problems: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  const response = await page.goto(`${worker.url}${path}`);
  if (response?.status() !== 200) throw new Error(`${path} answered ${response?.status()}`);
  return { page, dialogs, problems, headers: response.headers() };
};

/** Opens the printed link: the browser lands on the jobs page, the token gone from its address. */
const signIn = async (browser: Browser): Promise<Page> => {
  const page = await browser.context.newPage();
  const response = await page.goto(link);
  if (response?.status() !== 200) throw new Error(`the console link answered ${response?.status()}`);
  return page;
};

const field = async (page: Page, row: string, name: string): Promise<string> =>
  ((await page.locator(`${row} [data-field="${name}"]`).first().textContent()) ?? "").trim();
const runRow = () => `tbody.run[data-run-id="${runId}"]`;

/** The job's script exits 3, so the awaited run ends failed: RUN_FAILED (exit 4) with the run in the error. */
const manualRun = async () =>
  (
    await cli<{ error: { run_id: string; run: { state: string } } }>(
      env,
      alice,
      "run-automation-job-cli",
      ["--id", jobId, "--wait-seconds", "30"],
      { expectExit: 4 },
    )
  ).error;

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  env = automationEnv(target);
  alice = await checkInAgent(env, mkdtempSync(join(tmpdir(), "ac-tokens-")), "alice", ["--status", STATUS, "--role", "reviewer"]);
  await cli(env, alice, "worker-env-cli set", ["--file", "-"], { input: `API_KEY=${API_KEY}\n` });
  jobId = (await cli<{ id: string }>(env, alice, "create-automation-job-cli", ["--dir", jobDir(MAIN), "--label", LABEL])).id;
  webhook = await cli<{ id: string; secret: string }>(env, alice, "create-webhook-cli", [
    "--label",
    HOOK_LABEL,
    "--automation-job-id",
    jobId,
  ]);
  worker = await startDaemon(env);
  const started = await manualRun();
  expect(started.run.state).toBe("failed");
  runId = started.run_id;
  link = await consoleLinkFor(env, worker.url);
  withJs = await launchChromium({ viewport: { width: 1280, height: 900 } });
  withoutJs = await launchChromium({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
  for (const browser of [withJs, withoutJs]) await signIn(browser);
}, 120_000);

afterAll(async () => {
  await withJs?.close();
  await withoutJs?.close();
  worker?.process.kill("SIGTERM");
  await worker?.process;
  await target?.dispose();
});

describe("the console in headless Chromium [sqlite]", () => {
  test("the worker logs the console URL: loopback, on the port it picked", () => {
    expect(worker.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test("the jobs page shows each run's state, attempt, exit code, error and output tails", async () => {
    const { page } = await open(withJs, "/");
    expect(await page.locator(`section.job[data-job-id="${jobId}"] h2`).textContent()).toBe(LABEL);
    expect(await field(page, runRow(), "state")).toBe("failed");
    expect(await field(page, runRow(), "attempt")).toBe("1");
    expect(await field(page, runRow(), "exit_code")).toBe("3");
    expect(await field(page, runRow(), "error")).toContain("exited with code 3");
    const stdout = await field(page, runRow(), "stdout");
    expect(stdout).toContain("hello from stdout");
    expect(stdout).toContain("<script>alert(1)</script>");
    expect(await field(page, runRow(), "stderr")).toContain("<img src=x onerror=alert(2)> warning on stderr");
    mkdirSync(join(repoRoot, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: join(repoRoot, "test-artifacts", "console-jobs.png"), fullPage: true });
  });

  test("markup in script output, labels and statuses is text: no element is made of it and nothing runs", async () => {
    for (const path of ["/", "/triggers", "/agents"]) {
      const { page, dialogs, problems, headers } = await open(withJs, path);
      expect(headers["content-security-policy"]).toContain("script-src 'self'");
      expect(headers["content-security-policy"]).toContain("default-src 'none'");
      expect(await page.locator("script").evaluateAll((all) => all.map((s) => s.getAttribute("src")))).toEqual([
        "/console/live-refresh.js",
      ]);
      expect(await page.locator("main img, main em, main i, main b").count()).toBe(0);
      await page.waitForTimeout(500);
      expect(dialogs).toEqual([]);
      expect(problems).toEqual([]);
    }
    const { page } = await open(withJs, "/");
    const text = (await page.textContent("body")) ?? "";
    expect(text).toContain("<script>alert(1)</script>");
    expect(text).toContain("<img src=x onerror=alert(2)>");
    expect(text).toContain(LABEL);
  });

  test("no secret reaches a page: WorkerEnv values are cut out of output, webhook secrets are never shown", async () => {
    const { page } = await open(withJs, "/");
    expect(await field(page, runRow(), "stdout")).toContain("key=[WorkerEnv API_KEY]");
    for (const path of ["/", "/triggers", "/agents"]) {
      const html = await (await open(withJs, path)).page.content();
      expect(html).not.toContain(API_KEY);
      expect(html).not.toContain(webhook.secret);
      expect(html).not.toContain(webhook.secret.replace(/^whsec_/, ""));
    }
  });

  test("the triggers page lists the webhook with its owner, job and URL", async () => {
    const { page } = await open(withJs, "/triggers");
    const row = `tr[data-trigger-id="${webhook.id}"]`;
    expect(await field(page, row, "kind")).toBe("webhook");
    expect(await field(page, row, "label")).toBe(HOOK_LABEL);
    expect(await field(page, row, "owner")).toBe("alice");
    expect(await field(page, row, "job")).toBe(jobId);
    expect(await field(page, row, "state")).toBe("active");
    expect(await field(page, row, "schedule")).toContain(`${worker.url}/hooks/${webhook.id}`);
    await page.screenshot({ path: join(repoRoot, "test-artifacts", "console-triggers.png"), fullPage: true });
  });

  test("the agents page shows the agent, alive, with its status line and the status's age", async () => {
    const { page } = await open(withJs, "/agents");
    const row = 'tr[data-agent-id="alice"]';
    expect(await field(page, row, "liveness")).toMatch(/^alive\s*by (age|pid)$/);
    expect(await field(page, row, "status")).toBe(STATUS);
    expect(await field(page, row, "status_age")).toMatch(/^\d+ s ago$/);
    expect(await field(page, row, "role")).toBe("reviewer");
    await page.screenshot({ path: join(repoRoot, "test-artifacts", "console-agents.png"), fullPage: true });
  });

  test("without JavaScript every page renders the same facts", async () => {
    const jobs = (await open(withoutJs, "/")).page;
    expect(await field(jobs, runRow(), "state")).toBe("failed");
    expect(await field(jobs, runRow(), "attempt")).toBe("1");
    expect(await field(jobs, runRow(), "exit_code")).toBe("3");
    expect(await field(jobs, runRow(), "stdout")).toContain("<script>alert(1)</script>");
    const triggers = (await open(withoutJs, "/triggers")).page;
    expect(await field(triggers, `tr[data-trigger-id="${webhook.id}"]`, "label")).toBe(HOOK_LABEL);
    const agents = (await open(withoutJs, "/agents")).page;
    expect(await field(agents, 'tr[data-agent-id="alice"]', "status_age")).toMatch(/^\d+ s ago$/);
  });

  test("pages stay live: a new run appears in place with JavaScript, and by meta refresh without it", async () => {
    const live = (await open(withJs, "/")).page;
    const still = (await open(withoutJs, "/")).page;
    await live.evaluate(() => {
      (globalThis as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const rows = (page: Page) => page.locator(`section.job[data-job-id="${jobId}"] tbody.run`).count();
    expect(await rows(live)).toBe(1);
    expect(await rows(still)).toBe(1);
    const second = await manualRun();
    const appears = async (page: Page) => {
      await expect.poll(() => rows(page), { timeout: 15_000, interval: 250 }).toBe(2);
      expect(await page.locator(`tbody.run[data-run-id="${second.run_id}"]`).count()).toBe(1);
    };
    await appears(live);
    await appears(still);
    expect(await live.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  }, 60_000);

  test("a page asked for under a foreign Host name is refused (DNS rebinding), even with the console cookie", async () => {
    const cookie = (await withJs.context.cookies(worker.url)).map((c) => `${c.name}=${c.value}`).join("; ");
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${worker.url}/agents`);
        request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host, cookie } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        })
          .on("error", reject)
          .end();
      });
    expect(await status(`evil.example:${new URL(worker.url).port}`)).toBe(421);
    expect(await status(`localhost:${new URL(worker.url).port}`)).toBe(200);
  });
});

describe("writing from the console in headless Chromium [sqlite]", () => {
  const BODY = '<b>ship</b> it? <script>alert("w")</script>';

  test("compose, an agent's answer, a reply in its thread; forged, tokenless and cookieless posts store nothing", async () => {
    const { page, dialogs, problems } = await open(withJs, "/compose");
    await page.fill('form[data-form="compose"] input[name="to"]', "alice");
    await page.fill('form[data-form="compose"] textarea[name="body"]', BODY);
    await page.click('form[data-form="compose"] button[type="submit"]');
    await page.waitForURL(/\/thread\?id=msg_/);
    const sent = page.locator("tr[data-message-id]").first();
    const human = ((await sent.locator('[data-field="from"] strong').textContent()) ?? "").trim();
    expect(human).toMatch(/^human-/);
    expect(((await sent.locator('[data-field="body"] pre').textContent()) ?? "").trim()).toBe(BODY);
    expect(await sent.locator('[data-recipient="alice"] .delivery').textContent()).toBe("pending");
    expect(await page.locator("main b, main script").count()).toBe(0);

    const answer = await cli<{ id: string }>(env, alice, "agent-send-cli", ["--to", human, "--body", "yes <i>today</i>"]);
    await page.goto(`${worker.url}/messages`);
    await page.click(`tr[data-message-id="${answer.id}"] a[data-field="reply"]`);
    await page.fill('form[data-form="compose"] textarea[name="body"]', "thanks");
    await page.click('form[data-form="compose"] button[type="submit"]');
    await page.waitForURL(new RegExp(`/thread\\?id=${answer.id}#msg_`));
    const thread = page.locator("tr[data-message-id]");
    expect(await thread.count()).toBe(2);
    expect(await thread.nth(0).locator('[data-field="body"] pre').textContent()).toBe("yes <i>today</i>");
    expect(await thread.nth(1).locator('[data-field="body"] pre').textContent()).toBe("thanks");
    await page.screenshot({ path: join(repoRoot, "test-artifacts", "console-thread.png"), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);

    // The forger even holds a valid form token: the browser sends no cookie (SameSite=Strict), and the Origin is not ours.
    const compose = await (await open(withJs, "/compose")).page.content();
    const formToken = /name="form_token" value="([^"]+)"/.exec(compose)?.[1] as string;
    const forger = await forgerSite(`${worker.url}/compose`, {
      form_token: formToken,
      to: "alice",
      body: "forged by another site",
    });
    try {
      const evil = await withJs.context.newPage();
      await evil.goto(forger.url);
      const [answered] = await Promise.all([evil.waitForResponse(`${worker.url}/compose`), evil.click("#go")]);
      expect(answered.status()).toBe(401);
    } finally {
      forger.close();
    }
    const own = (await open(withJs, "/messages")).page;
    const post = (fields: Record<string, string>, credentials: "same-origin" | "omit") =>
      own.evaluate(
        async ([body, creds]) =>
          (await fetch("/compose", { method: "POST", body: new URLSearchParams(body), credentials: creds, redirect: "manual" }))
            .status,
        [fields, credentials] as const,
      );
    expect(await post({ to: "alice", body: "no form token" }, "same-origin")).toBe(403);
    expect(await post({ form_token: formToken, to: "alice", body: "no cookie" }, "omit")).toBe(401);
    const inbox = await cli<{ messages: { body: string }[] }>(env, alice, "agent-inbox-cli", []);
    const bodies = inbox.messages.map((m) => m.body);
    expect(bodies).toContain(BODY);
    expect(bodies).toContain("thanks");
    for (const refused of ["forged by another site", "no form token", "no cookie"]) expect(bodies).not.toContain(refused);
  }, 60_000);
});

describe("signing in to the console in headless Chromium [sqlite]", () => {
  const jobSection = (page: Page) => page.locator(`section.job[data-job-id="${jobId}"]`);

  test("the printed link opens the jobs page, drops the token from the address, and a reload still shows it", async () => {
    const browser = await launchChromium();
    try {
      const page = await signIn(browser);
      expect(page.url()).toBe(`${worker.url}/`);
      expect(await jobSection(page).count()).toBe(1);
      const reloaded = await page.reload();
      expect(reloaded?.status()).toBe(200);
      expect(page.url()).toBe(`${worker.url}/`);
      expect(await jobSection(page).count()).toBe(1);
      const again = await page.goto(`${worker.url}/triggers`);
      expect(again?.status()).toBe(200);
      const [cookie, ...more] = await browser.context.cookies(worker.url);
      expect(more).toEqual([]);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/", secure: false });
      expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe("");
      expect(link).toContain(cookie?.value);
    } finally {
      await browser.close();
    }
  });

  test("the link clicked on another site's page signs in too (the 401 page refreshes once from the console)", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      // localhost and 127.0.0.1 are different sites: the click is a cross-site navigation, as from a web chat.
      await page.goto(`${worker.url.replace("127.0.0.1", "localhost")}/console/console.css`);
      await page.evaluate((href) => {
        type Anchor = { href: string; id: string; textContent: string };
        const doc = (globalThis as unknown as { document: { createElement(t: "a"): Anchor; body: { append(a: Anchor): void } } })
          .document;
        const a = doc.createElement("a");
        a.href = href;
        a.id = "console-link";
        a.textContent = "console";
        doc.body.append(a);
      }, link);
      await page.click("#console-link");
      await expect.poll(() => jobSection(page).count(), { timeout: 15_000, interval: 250 }).toBe(1);
      expect(page.url()).toBe(`${worker.url}/`);
    } finally {
      await browser.close();
    }
  }, 30_000);

  test("a fresh browser without the link gets the 401 page: how to get the link, and no data", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      for (const path of ["/", "/triggers", "/agents"]) {
        const response = await page.goto(`${worker.url}${path}`);
        expect(response?.status(), path).toBe(401);
        expect(await page.locator("h1").textContent()).toBe("Sign-in link needed");
        expect(await page.locator("main code").first().textContent()).toBe(
          `agent-computer-worker --console-url --port ${new URL(worker.url).port}`,
        );
        const content = await page.content();
        for (const secret of [LABEL, HOOK_LABEL, jobId, webhook.id, "alice", "hello from stdout"]) {
          expect(content, `${path} shows ${secret}`).not.toContain(secret);
        }
      }
      await page.screenshot({ path: join(repoRoot, "test-artifacts", "console-denied.png"), fullPage: true });
      expect(await browser.context.cookies(worker.url)).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  test("the live refresh says so when the browser is signed out, instead of showing stale pages as live", async () => {
    const browser = await launchChromium();
    try {
      const page = await signIn(browser);
      await browser.context.clearCookies();
      await expect
        .poll(() => page.locator("#live-status").textContent(), { timeout: 15_000, interval: 250 })
        .toContain("signed out");
    } finally {
      await browser.close();
    }
  }, 30_000);
});
