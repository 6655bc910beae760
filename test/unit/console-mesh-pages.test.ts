// The console's mesh pages and its Write page rendered from hostile data: every string an agent controls (ids,
// names, bodies, channel names, branches, reasons, what was typed into a refused form) comes out as text. Plus the
// form token: per console token and per form.
import { describe, expect, test } from "vitest";
import { unixUserName } from "../../app/agent_computer/src/adapters/local-host.ts";
import { channelsPage } from "../../app/agent_computer/src/console/channels-page.ts";
import { composePage } from "../../app/agent_computer/src/console/compose-page.ts";
import { formToken } from "../../app/agent_computer/src/console/form-guard.ts";
import { parseCompose } from "../../app/agent_computer/src/console/forms.ts";
import { humanAgentId } from "../../app/agent_computer/src/console/human-agent.ts";
import { layout } from "../../app/agent_computer/src/console/layout.ts";
import { leasesPage } from "../../app/agent_computer/src/console/leases-page.ts";
import { canReply } from "../../app/agent_computer/src/console/message-list.ts";
import { messagesPage } from "../../app/agent_computer/src/console/messages-page.ts";
import { tasksPage } from "../../app/agent_computer/src/console/tasks-page.ts";
import { threadPage } from "../../app/agent_computer/src/console/thread-page.ts";
import { decodeCursor, encodeCursor } from "../../app/agent_computer/src/domain/mesh/operator-view.ts";

const EVIL = `<x-evil a="1">'&`;
const ESCAPED = "&lt;x-evil a=&quot;1&quot;&gt;&#39;&amp;";
const T = "2026-05-01T12:00:03.000Z";

const message = {
  id: `msg_${EVIL}`,
  from: EVIL,
  kind: EVIL,
  body: EVIL,
  thread_id: EVIL,
  reply_to: EVIL,
  channel: null,
  created_at: T,
  recipients: [{ agent_id: EVIL, state: "pending" as const }],
  recipient_count: 1,
};
const channel = { name: EVIL, created_by: EVIL, created_at: T, members: [EVIL], member_count: 1 };
const task = {
  id: EVIL,
  title: EVIL,
  body: EVIL,
  required_caps: [EVIL],
  priority: EVIL,
  state: EVIL,
  poster: EVIL,
  assignee: EVIL,
  result: EVIL,
  reason: null,
  version: 1,
  created_at: T,
  updated_at: T,
};
const leases = {
  controllers: [{ controller_id: EVIL, host_id: EVIL, generation: 1, acquired_at: T, renewed_at: T, expires_at: T }],
  writers: [
    {
      lease_id: EVIL,
      controller_id: EVIL,
      host_id: EVIL,
      branch: EVIL,
      worktree: EVIL,
      owned_scopes: [EVIL],
      state: EVIL,
      ticket_ref: EVIL,
      created_at: T,
    },
  ],
  panes: [
    {
      lease_id: EVIL,
      type: EVIL,
      controller_id: EVIL,
      agent_name: EVIL,
      agent_kind: EVIL,
      state: EVIL,
      purpose: EVIL,
      pane_id: EVIL,
      updated_at: T,
    },
  ],
};
const reservation = {
  id: EVIL,
  repo: EVIL,
  holder: EVIL,
  patterns: [EVIL],
  exclusive: true,
  reason: EVIL,
  created_at: T,
  expires_at: T,
};
const compose = {
  human: EVIL,
  tokens: { compose: EVIL, channelPost: EVIL },
  channels: [channel],
  to: `"><script>alert(1)</script>${EVIL}`,
  body: `</textarea><script>alert(2)</script>${EVIL}`,
  error: { form: "compose" as const, text: EVIL },
};

const pages = {
  messages: layout(
    messagesPage({ messages: [message], next_cursor: EVIL }, { human: EVIL, ackToken: EVIL }, 50, false),
    "/messages",
    new Date(T),
  ).text,
  thread: layout(
    threadPage(EVIL, { messages: [message], next_cursor: EVIL }, { human: EVIL, ackToken: EVIL }, 100),
    "/messages",
    new Date(T),
  ).text,
  channels: layout(channelsPage({ channels: [channel], more: true }, 200), "/channels", new Date(T)).text,
  tasks: layout(tasksPage([task], 100), "/tasks", new Date(T)).text,
  leases: layout(leasesPage(leases, [reservation], 200), "/leases", new Date(T)).text,
  write: layout(composePage(compose), "/compose", new Date(T)).text,
};

describe("the console's mesh pages", () => {
  test.each(Object.entries(pages))("the %s page renders every hostile value escaped, never as markup", (_name, page) => {
    expect(page).not.toContain("<x-evil");
    expect(page).toContain(ESCAPED);
    expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(page).not.toContain("<script>alert");
  });

  test("the Write page keeps what was typed as text and loads no refresh: nothing may wipe it", () => {
    expect(pages.write).toContain("&lt;/textarea&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(pages.write).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(pages.write).not.toContain("live-refresh.js");
    expect(pages.write).not.toContain('http-equiv="refresh"');
    expect(pages.messages).toContain('<script type="module" src="/console/live-refresh.js"></script>');
  });

  test("a Reply link only for mail delivered to the console's human, never for its own", () => {
    const to = (state: "pending" | "acked" | "not_checked_in" | "expired_undelivered") => ({
      ...message,
      from: "alice",
      recipients: [{ agent_id: "human-me", state }],
    });
    expect(canReply(to("pending"), "human-me")).toBe(true);
    expect(canReply(to("acked"), "human-me")).toBe(true);
    expect(canReply(to("not_checked_in"), "human-me")).toBe(false);
    expect(canReply({ ...to("pending"), from: "human-me" }, "human-me")).toBe(false);
    expect(canReply({ ...to("pending"), recipients: [{ agent_id: "bob", state: "pending" }] }, "human-me")).toBe(false);
  });
});

describe("the form token and the cursor", () => {
  test("a form token is bound to the console token and to the form", () => {
    expect(formToken("a", "/compose")).toBe(formToken("a", "/compose"));
    expect(formToken("a", "/compose")).not.toBe(formToken("b", "/compose"));
    expect(formToken("a", "/compose")).not.toBe(formToken("a", "/channels/post"));
    const secret = "console-token-0123456789";
    expect(formToken(secret, "/compose")).not.toContain(secret);
  });

  test("a cursor round-trips; anything else is INVALID_INPUT", () => {
    const id = `msg_${"0".repeat(32)}`;
    expect(decodeCursor(encodeCursor(id))).toBe(id);
    expect(decodeCursor(undefined)).toBeUndefined();
    for (const bad of ["", "!!", encodeCursor("x y"), `${encodeCursor(id)}=`]) {
      expect(() => decodeCursor(bad)).toThrow(/not a cursor this console gave out/);
    }
  });

  test("recipients split on spaces and commas, once each; one of to or reply_to", () => {
    expect(parseCompose({ to: "alice, bob  alice", body: "hi" })).toEqual({
      ok: true,
      value: { to: ["alice", "bob"], body: "hi" },
    });
    expect(parseCompose({ body: "hi" })).toEqual({ ok: false, error: "to: name the recipients, or reply to a message" });
    expect(parseCompose({ to: "alice", reply_to: `msg_${"a".repeat(32)}`, body: "hi" }).ok).toBe(false);
    expect(parseCompose({ reply_to: "msg_x", body: "hi" })).toEqual({
      ok: false,
      error: "reply_to: must be a message id (msg_…)",
    });
  });
});

describe("the console's human agent's name", () => {
  test("human-<user> from USER or LOGNAME, kept to the agent-id alphabet; never human-unknown", () => {
    expect(humanAgentId(unixUserName({ USER: "ada" }))).toBe("human-ada");
    expect(humanAgentId(unixUserName({ LOGNAME: "Jean Luc@corp" }))).toBe("human-Jean_Luc_corp");
    expect(humanAgentId("x".repeat(80))).toHaveLength(64);
    expect(humanAgentId(unixUserName({}))).toMatch(/^human-[A-Za-z0-9_.-]+$/);
    expect(humanAgentId(unixUserName({}))).not.toBe("human-unknown");
  });
});
