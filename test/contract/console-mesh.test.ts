// The console's mesh pages and its writes, in process on every store: its routes called with the requests a browser
// (or a forger) sends. Pages show every agent's messages newest first a page at a time, threads, channels with
// members, tasks, Herdr leases and reservations, with every stored string as text; a write needs the cookie, this
// console's Origin and the form's token, goes through the send service as human-<user>, and is refused whole
// otherwise.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cookieName } from "../../app/agent_computer/src/console/access.ts";
import type { ConsoleDeps, ConsoleRoutes } from "../../app/agent_computer/src/console/console-deps.ts";
import { formToken } from "../../app/agent_computer/src/console/form-guard.ts";
import { consoleRoutes } from "../../app/agent_computer/src/console/routes.ts";
import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import type { Deps, RateLimits } from "../../app/agent_computer/src/domain/deps.ts";
import { saveLease } from "../../app/agent_computer/src/domain/herdr/leases.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { channelAction } from "../../app/agent_computer/src/domain/mesh/channels.ts";
import { manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { reserve } from "../../app/agent_computer/src/domain/reservations/reserve.ts";
import { postTask } from "../../app/agent_computer/src/domain/tasks/post.ts";
import { herdrStateDirs } from "../../app/agent_computer/src/local/herdr-state.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const BASE = "http://127.0.0.1:8787";
const TOKEN = "console-token-for-tests-0123456789abcdef";
const HUMAN = "human-tester";
const EVIL = `<script>alert("x")</script><img src=x onerror=alert(1)>&'`;
const ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;&#39;";

describe.each(storeNames)("the console's mesh pages and writes [%s]", (storeName) => {
  let target: StoreTarget;
  let store: Store;
  let home: string;
  let routes: ConsoleRoutes;
  /** Sends per window that the rate limit lets through (the test of the limit lowers it). */
  let sendLimit = 1000;
  const agents: Record<string, string> = {};
  const errors: string[] = [];
  const limits: RateLimits = {
    rule: (kind, scope) => (kind === "send" && scope === "name" ? { max: sendLimit, windowS: 3600 } : null),
    broadcastMaxRecipients: () => 1000,
  };
  const deps = (): Deps => ({ store, now: () => Date.now(), host: "test-host", newId, limits });
  const as = (name: string) => ({ agentId: name, token: agents[name] as string });

  const call = async (method: "GET" | "POST", path: string, init: { headers?: Record<string, string>; body?: string } = {}) => {
    const url = new URL(path, BASE);
    const handler = routes[url.pathname]?.[method];
    if (!handler) throw new Error(`no ${method} ${url.pathname}`);
    const response = await handler(
      new Request(url.href, { method, headers: { host: "127.0.0.1:8787", ...init.headers }, body: init.body }),
    );
    return { status: response.status, location: response.headers.get("location"), text: await response.text() };
  };
  const cookie = { cookie: `${cookieName(BASE)}=${TOKEN}` };
  const page = (path: string) => call("GET", path, { headers: cookie });
  const browserPost = (action: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    call("POST", action, {
      headers: {
        ...cookie,
        origin: BASE,
        "sec-fetch-site": "same-origin",
        "content-type": "application/x-www-form-urlencoded",
        ...headers,
      },
      body: new URLSearchParams({ form_token: formToken(TOKEN, action), ...fields }).toString(),
    });
  const messageCount = async () => Number((await target.sql("SELECT COUNT(*) AS n FROM messages"))[0]?.n);

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    store = await target.open();
    home = mkdtempSync(join(tmpdir(), "ac-console-mesh-"));
    const ctx: ConsoleDeps = {
      bindHost: "127.0.0.1",
      localUrl: () => BASE,
      token: TOKEN,
      env: {},
      paths: resolvePaths({ AGENT_COMPUTER_HOME: home }),
      humanAgentId: HUMAN,
      deps: deps(),
      logError: (msg, fields) => errors.push(`${msg} ${JSON.stringify(fields)}`),
    };
    routes = consoleRoutes(ctx);
    const pane = (id: string, state: "active" | "closed") => ({
      version: 1 as const,
      lease_id: `lease_${id.repeat(32)}`,
      type: "reviewer" as const,
      controller_id: "proj.ctl",
      state,
      purpose: `review <u>${state}</u>`,
      authority_ref: null,
      authority_sha256: null,
      agent_name: `reviewer-${state}`,
      agent_kind: "claude",
      cwd: "/wt/a",
      pane_id: "p_1",
      terminal_id: "t_1",
      workspace_id: null,
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    saveLease(herdrStateDirs(ctx.paths), pane("a", "active"), Date.now());
    saveLease(herdrStateDirs(ctx.paths), pane("b", "closed"), Date.now());
    for (const name of ["alice", "bob", "carol"]) {
      agents[name] = (await checkIn(deps(), { agentId: name, token: undefined, ttlSeconds: 86_400, status: EVIL }))
        .agent_token as string;
    }
    await sendMessage(deps(), { from: "alice", token: agents.alice, recipients: { kind: "to", agentIds: ["bob"] }, body: EVIL });
    for (let i = 0; i < 54; i++) {
      await sendMessage(deps(), {
        from: "bob",
        token: agents.bob,
        recipients: { kind: "to", agentIds: ["alice"] },
        body: `note ${i}`,
      });
    }
    await channelAction(deps(), { ...as("carol"), action: { kind: "create", channel: "release" } });
    await channelAction(deps(), { ...as("alice"), action: { kind: "join", channel: "release" } });
    await postTask(deps(), { ...as("carol"), title: EVIL, body: "ship it", requireCaps: ["ts"], priority: "high" });
    await reserve(deps(), {
      ...as("alice"),
      repoKey: "f".repeat(64),
      patterns: ["src/**"],
      exclusive: true,
      ttlS: 3600,
      reason: EVIL,
    });
    await store.write(async (tx) => {
      await tx.herdr.insertControllerLease({
        controllerId: "proj.ctl",
        leaseId: "lease-secret-controller",
        fenceHash: "b".repeat(64),
        generation: 3,
        hostId: "host-a",
        authorityRef: "acme/api#7",
        authoritySha256: "a".repeat(64),
        state: "active",
        acquiredAt: Date.now(),
        renewedAt: Date.now(),
        expiresAt: Date.now() + 600_000,
        releasedAt: null,
        checkpointRef: null,
        checkpointSha256: null,
      });
      await tx.herdr.lockWriterRepo("repo-1");
      await tx.herdr.insertWriterClaim({
        leaseId: "lease_w1",
        repoKey: "repo-1",
        controllerId: "proj.ctl",
        hostId: "host-a",
        worktree: "/wt/a",
        branch: "feat-<b>a</b>",
        ownedScopes: ["src/api"],
        blockedScopes: [],
        ticketRef: "acme/api#7",
        authorityRef: "acme/api#7",
        authoritySha256: "a".repeat(64),
        state: "active",
        checkpointRef: null,
        checkpointSha256: null,
        createdAt: Date.now(),
        updatedAt: Date.now(),
      });
    });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await target?.dispose();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test("messages: newest first, 50 a page, the next page by the cursor in the link, the last page says so", async () => {
    const first = await page("/messages");
    expect(first.status).toBe(200);
    const notes = (text: string) => [...text.matchAll(/<pre class="body">(note \d+|&lt;script)/g)].map((m) => m[1]);
    expect(notes(first.text).slice(0, 3)).toEqual(["note 53", "note 52", "note 51"]);
    expect(notes(first.text)).toHaveLength(50);
    const next = /href="(\/messages\?cursor=[A-Za-z0-9_-]+)"/.exec(first.text)?.[1];
    expect(next).toBeDefined();
    const second = await page(next as string);
    expect(notes(second.text)).toEqual(["note 3", "note 2", "note 1", "note 0", "&lt;script"]);
    expect(second.text).toContain("End of the list.");
    expect(second.text).not.toContain("/messages?cursor=");
  });

  test("every stored string is text: bodies, statuses, task titles, reasons and branches never become markup", async () => {
    const second = /href="(\/messages\?cursor=[A-Za-z0-9_-]+)"/.exec((await page("/messages")).text)?.[1] as string;
    for (const path of [second, "/agents", "/tasks", "/leases"]) {
      const { text } = await page(path);
      expect(text, path).not.toContain("<script>alert");
      expect(text, path).not.toContain("<img src=x");
      expect(text, path).not.toContain("<b>a</b>");
      expect(text, path).toContain(ESCAPED);
    }
    expect((await page("/leases")).text).toContain("feat-&lt;b&gt;a&lt;/b&gt;");
  });

  test("a cursor the console did not give out is a 400 page, not a store error", async () => {
    const bad = await page("/messages?cursor=not%20a%20cursor");
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("not a cursor this console gave out");
    expect(errors).toEqual([]);
  });

  test("channels with their members; tasks; Herdr leases (the controller's lease id left out, held panes of this host); reservations", async () => {
    const channels = await page("/channels");
    expect(channels.text).toMatch(/data-channel="release"[\s\S]*alice, carol/);
    const tasks = await page("/tasks");
    expect(tasks.text).toContain("ship it");
    const leases = await page("/leases");
    expect(leases.text).toContain('data-controller-id="proj.ctl"');
    expect(leases.text).toContain('data-lease-id="lease_w1"');
    expect(leases.text).not.toContain("lease-secret-controller");
    expect(leases.text).toContain("src/**");
    expect(leases.text).toContain(`data-pane-lease-id="lease_${"a".repeat(32)}"`);
    expect(leases.text).toContain("review &lt;u&gt;active&lt;/u&gt;");
    expect(leases.text).not.toContain("reviewer-closed");
  });

  test("agents by host, live and stale counted", async () => {
    const { text } = await page("/agents");
    expect(text).toContain('data-host="test-host"');
    expect(text).toMatch(/3 live · 0 stale/);
  });

  test("no write without the cookie, this console's Origin and the form's token: nothing is stored", async () => {
    const before = await messageCount();
    const fields = { to: "alice", body: "forged" };
    const noCookie = await browserPost("/compose", fields, { cookie: "" });
    expect(noCookie.status).toBe(401);
    const foreign = await browserPost("/compose", fields, { origin: "http://evil.example", "sec-fetch-site": "cross-site" });
    expect(foreign.status).toBe(403);
    const otherPort = await browserPost("/compose", fields, { origin: "http://127.0.0.1:9999" });
    expect(otherPort.status).toBe(403);
    const noOrigin = await call("POST", "/compose", {
      headers: { ...cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ form_token: formToken(TOKEN, "/compose"), ...fields }).toString(),
    });
    expect(noOrigin.status).toBe(403);
    const noToken = await call("POST", "/compose", {
      headers: { ...cookie, origin: BASE, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain("token is missing");
    const otherFormsToken = await browserPost("/compose", { ...fields, form_token: formToken(TOKEN, "/channels/post") });
    expect(otherFormsToken.status).toBe(403);
    const otherConsolesToken = await browserPost("/compose", { ...fields, form_token: formToken("another-token", "/compose") });
    expect(otherConsolesToken.status).toBe(403);
    expect(await messageCount()).toBe(before);
    expect(await target.sql("SELECT name FROM agents WHERE name = $1", [HUMAN])).toEqual([]);
  });

  test("bad fields are refused before any write, naming the field, with what was typed kept", async () => {
    const before = await messageCount();
    const badName = await browserPost("/compose", { to: "alice -bob", body: "hello there" });
    expect(badName.status).toBe(400);
    expect(badName.text).toContain("to: &quot;-bob&quot; is not an agent name");
    expect(badName.text).toContain("hello there</textarea>");
    expect((await browserPost("/compose", { to: "alice", body: "  " })).text).toContain("body: write something to send");
    expect((await browserPost("/compose", { to: "alice", body: "x".repeat(65_537) })).text).toContain(
      "body: at most 65536 bytes",
    );
    expect((await browserPost("/channels/post", { channel: "Release!", body: "x" })).text).toContain("channel: must be");
    expect(await messageCount()).toBe(before);
  });

  test("a message from the console goes out as human-<user>, registered once with class human, its token in the vault", async () => {
    const sent = await browserPost("/compose", { to: "alice, bob", body: EVIL });
    expect(sent.status).toBe(303);
    const id = /#(msg_[0-9a-f]{32})$/.exec(sent.location ?? "")?.[1] as string;
    const thread = await page(sent.location as string);
    expect(thread.text).toContain(ESCAPED);
    expect(thread.text).toMatch(/data-recipient="alice">alice <span class="delivery state-pending"/);
    const [row] = await target.sql("SELECT sender FROM messages WHERE id = $1", [id]);
    expect(row?.sender).toBe(HUMAN);
    const [agent] = await target.sql("SELECT class, role FROM agents WHERE name = $1", [HUMAN]);
    expect(agent).toMatchObject({ class: "human", role: "human" });
    const vaultFile = join(home, "tokens", `${HUMAN}.token`);
    expect(statSync(vaultFile).mode & 0o777).toBe(0o600);
    expect((await browserPost("/compose", { to: "carol", body: "second" })).status).toBe(303);
    expect(await target.sql("SELECT name FROM agents WHERE name = $1", [HUMAN])).toHaveLength(1);
  });

  test("a reply joins the sender's thread and marks the message read; a reply to mail the human never got is refused", async () => {
    const ask = await sendMessage(deps(), {
      from: "alice",
      token: agents.alice,
      recipients: { kind: "to", agentIds: [HUMAN] },
      body: "ok?",
    });
    expect(ask.recipients[0]?.outcome).toBe("live");
    expect((await page("/messages")).text).toContain(`href="/compose?reply_to=${ask.id}"`);
    const form = await page(`/compose?reply_to=${ask.id}`);
    expect(form.text).toContain(`name="reply_to" value="${ask.id}"`);
    const replied = await browserPost("/compose", { reply_to: ask.id, body: "yes" });
    expect(replied.status).toBe(303);
    expect(replied.location).toContain(`/thread?id=${ask.id}#`);
    const [reply] = await target.sql("SELECT thread_id, reply_to FROM messages WHERE sender = $1 AND body = 'yes'", [HUMAN]);
    expect(reply).toMatchObject({ thread_id: ask.id, reply_to: ask.id });
    const [delivery] = await target.sql("SELECT state FROM deliveries WHERE message_id = $1 AND recipient = $2", [ask.id, HUMAN]);
    expect(delivery?.state).toBe("acked");
    const [others] = await target.sql("SELECT id FROM messages WHERE sender = 'bob' LIMIT 1");
    const refused = await browserPost("/compose", { reply_to: String(others?.id), body: "butting in" });
    expect(refused.status).toBe(404);
    expect(refused.text).toContain("MESSAGE_NOT_FOUND");
  });

  test("unread mail of the human can be marked read from its row, by that form's token only", async () => {
    const note = await sendMessage(deps(), {
      from: "bob",
      token: agents.bob,
      recipients: { kind: "to", agentIds: [HUMAN] },
      body: "fyi",
    });
    const row = (await page("/messages")).text.split(`data-message-id="${note.id}"`)[1]?.split("</tr>")[0] ?? "";
    expect(row).toContain(`name="message_id" value="${note.id}"`);
    expect(row).toContain(`value="${formToken(TOKEN, "/messages/ack")}"`);
    const state = async () =>
      (await target.sql("SELECT state FROM deliveries WHERE message_id = $1 AND recipient = $2", [note.id, HUMAN]))[0]?.state;
    const withComposeToken = await browserPost("/messages/ack", {
      message_id: note.id,
      form_token: formToken(TOKEN, "/compose"),
    });
    expect(withComposeToken.status).toBe(403);
    expect(await state()).toBe("pending");
    const marked = await browserPost("/messages/ack", { message_id: note.id });
    expect(marked.status).toBe(303);
    expect(await state()).toBe("acked");
    expect((await page("/messages")).text.split(`data-message-id="${note.id}"`)[1]?.split("</tr>")[0]).not.toContain("Mark read");
  });

  test("the recipient's policy and the rate limit hold for the console's human as for any agent", async () => {
    await manageContacts(deps(), { ...as("carol"), change: { kind: "block", contacts: [HUMAN] } });
    const before = await messageCount();
    const blocked = await browserPost("/compose", { to: "carol", body: "let me in" });
    expect(blocked.status).toBe(409);
    expect(blocked.text).toContain("REFUSED_BY_POLICY");
    sendLimit = 0;
    const limited = await browserPost("/compose", { to: "alice", body: "too many" });
    sendLimit = 1000;
    expect(limited.status).toBe(429);
    expect(await messageCount()).toBe(before);
  });

  test("a channel post joins the human to the channel and reaches the members that accept it (carol blocks it)", async () => {
    const posted = await browserPost("/channels/post", { channel: "release", body: "v1.2 is out" });
    expect(posted.status).toBe(303);
    const [post] = await target.sql("SELECT id, channel FROM messages WHERE sender = $1 AND body = 'v1.2 is out'", [HUMAN]);
    expect(post?.channel).toBe("release");
    const recipients = await target.sql("SELECT recipient FROM deliveries WHERE message_id = $1 ORDER BY recipient", [post?.id]);
    expect(recipients.map((r) => r.recipient)).toEqual(["alice"]);
    expect((await page("/channels")).text).toMatch(/alice, carol, human-tester/);
  });
});
