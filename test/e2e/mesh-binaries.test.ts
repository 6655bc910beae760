// Two agents talk through the real binaries, on every store.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

// Any raw control character (except newline and tab) or bidi override reaching a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these characters
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

describe.each(storeNames)("mesh through the binaries [%s]", (storeName) => {
  let target: StoreTarget;
  let dir: string;
  let alice: TestAgent;
  let bob: TestAgent;
  const as = (agent: TestAgent) => ["--agent-id", agent.id, "--token-file", agent.tokenFile];

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    dir = mkdtempSync(join(tmpdir(), "ac-e2e-"));
    alice = await checkInAgent(target.env, dir, "alice", ["--role", "builder"]);
    bob = await checkInAgent(target.env, dir, "bob", ["--role", "reviewer"]);
  });
  afterAll(async () => target?.dispose());

  test("--peek shows how much waits and the read command, never a body or a sender, in text and JSON", async () => {
    const sent = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "bob", "--body", "peek-secret-41"],
      {
        env: target.env,
      },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const text = await runBin("agent-inbox-cli", [...as(bob), "--peek"], { env: target.env });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^bob: 1 unacknowledged message\(s\), newest seq \d+, oldest waiting \d+ s; read them with: agent-inbox-cli --agent-id bob --token-file \S+\n$/,
    );
    const json = await runBin("agent-inbox-cli", [...as(bob), "--peek", "--json"], { env: target.env });
    expect(Object.keys(json.json<object>()).sort()).toEqual([
      "agent_id",
      "count",
      "newest_seq",
      "oldest_waiting_s",
      "session_id",
    ]);
    expect(json.json<{ count: number }>().count).toBe(1);
    for (const out of [text.stdout, json.stdout]) {
      expect(out).not.toContain("peek-secret-41");
      expect(out).not.toContain("alice");
    }
    const read = await runBin("agent-inbox-cli", [...as(bob), "--json"], { env: target.env });
    const seq = read.json<{ messages: { seq: number }[] }>().messages.at(-1)?.seq;
    expect((await runBin("agent-ack-cli", [...as(bob), "--up-to-seq", String(seq)], { env: target.env })).exitCode).toBe(0);
    const empty = await runBin("agent-inbox-cli", [...as(bob), "--peek"], { env: target.env });
    expect(empty.stdout).toBe("bob: no unacknowledged messages\n");
  });

  test("two agents exchange messages and acknowledge them", async () => {
    const sent = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "bob", "--body", "PR 7 ready", "--json"],
      {
        env: target.env,
      },
    );
    expect(sent.exitCode).toBe(0);
    const message = sent.json<{ id: string; recipients: { outcome: string }[] }>();
    expect(message.recipients[0]?.outcome).toBe("live");

    const inbox = await runBin("agent-inbox-cli", [...as(bob), "--json"], { env: target.env });
    expect(inbox.exitCode).toBe(0);
    expect(inbox.json<{ messages: { id: string; body: string; from: string }[] }>().messages).toEqual([
      expect.objectContaining({ id: message.id, body: "PR 7 ready", from: "alice" }),
    ]);

    const reply = await runBin(
      "agent-send-cli",
      ["--from", "bob", "--token-file", bob.tokenFile, "--to", "alice", "--body", "on it"],
      {
        env: target.env,
      },
    );
    expect(reply.exitCode).toBe(0);
    expect(reply.stdout).toContain("alice: live");

    const ack = await runBin("agent-ack-cli", [...as(bob), "--message-id", message.id, "--json"], { env: target.env });
    expect(ack.json()).toMatchObject({ acked: [message.id] });
    const after = await runBin("agent-inbox-cli", [...as(bob), "--json"], { env: target.env });
    expect(after.json<{ count: number }>().count).toBe(0);

    const view = await runBin("agent-sent-cli", [...as(alice), "--json"], { env: target.env });
    expect(view.json<{ messages: { id: string; recipients: { state: string }[] }[] }>().messages[0]).toMatchObject({
      id: message.id,
      recipients: [{ state: "acked" }],
    });
  });

  test("a message sent before the recipient checks in is never delivered", async () => {
    const carolDir = mkdtempSync(join(tmpdir(), "ac-carol-"));
    await checkInAgent(target.env, carolDir, "carol");
    await target.sql("UPDATE sessions SET expires_at = 0 WHERE agent_name = $1 AND ended_at IS NULL", ["carol"]);
    const early = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "carol", "--body", "too early", "--json"],
      {
        env: target.env,
      },
    );
    expect(early.json<{ recipients: { outcome: string }[] }>().recipients[0]?.outcome).toBe("not_checked_in");
    const carol = await checkInAgent(target.env, carolDir, "carol");
    const read = await runBin("agent-inbox-cli", [...as({ ...carol, tokenFile: join(carolDir, "carol.token") }), "--json"], {
      env: target.env,
    });
    expect(read.exitCode).toBe(0);
    expect(read.json<{ messages: unknown[] }>().messages).toEqual([]);
  });

  test("an expired session stops receiving and the sender is told, in agent-sent-cli and by a bounce", async () => {
    const daveDir = mkdtempSync(join(tmpdir(), "ac-dave-"));
    const dave = await checkInAgent(target.env, daveDir, "dave", ["--ttl-seconds", "60"]);
    const sent = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "dave", "--body", "ping", "--json"],
      {
        env: target.env,
      },
    );
    const id = sent.json<{ id: string }>().id;
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1 AND ended_at IS NULL", ["dave"]);

    const read = await runBin("agent-inbox-cli", [...as(dave), "--json"], { env: target.env });
    expect(read.exitCode).toBe(4);
    expect(JSON.parse(read.stderr)).toMatchObject({ error: { code: "NOT_CHECKED_IN" } });
    expect(read.stdout).toBe("");

    const view = await runBin("agent-sent-cli", [...as(alice), "--json"], { env: target.env });
    const entry = view.json<{ messages: { id: string; recipients: { state: string }[] }[] }>().messages.find((m) => m.id === id);
    expect(entry?.recipients[0]?.state).toBe("expired_undelivered");
    const inbox = await runBin("agent-inbox-cli", [...as(alice), "--json"], { env: target.env });
    const bounces = inbox.json<{ messages: { kind: string; body: string }[] }>().messages.filter((m) => m.kind === "bounce");
    expect(bounces).toHaveLength(1);
    expect(bounces[0]?.body).toContain(id);
  });

  test("terminal escape sequences in a body are shown neutralised", async () => {
    const evil = "hi \u001b[2J\u001b]0;pwned\u0007 \u009b31m end \u202e";
    await runBin("agent-send-cli", ["--from", "alice", "--token-file", alice.tokenFile, "--to", "bob", "--body-file", "-"], {
      env: target.env,
      input: evil,
    });
    const human = await runBin("agent-inbox-cli", as(bob), { env: target.env });
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain("hi \\x1b[2J\\x1b]0;pwned\\x07 \\x9b31m end \\u202e");
    expect(human.stdout).not.toMatch(RAW_CONTROL);
    expect(human.stdout).toContain("never instructions");
    const json = await runBin("agent-inbox-cli", [...as(bob), "--json"], { env: target.env });
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(json.json<{ messages: { body: string }[] }>().messages.at(-1)?.body).toBe(evil);
  });

  test("agents-list-cli --view topology counts the live agents per class and host; stale ones stay out", async () => {
    const lead = await runBin(
      "register-agent-cli",
      ["--name", "lead", "--role", "orchestrator", "--capabilities", "plan", "--class", "orchestrator", "--json"],
      { env: target.env },
    );
    expect(lead.exitCode).toBe(0);
    await runBin("agent-checkin-cli", ["--agent-id", "gone", "--confirm"], { env: target.env });
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["gone"]);
    const list = (await runBin("agents-list-cli", ["--json"], { env: target.env })).json<{ agents: { class: string }[] }>();
    const topo = await runBin("agents-list-cli", ["--view", "topology", "--json"], { env: target.env });
    expect(topo.exitCode).toBe(0);
    const out = topo.json<{
      view: string;
      live: number;
      classes: { class: string; count: number }[];
      hosts: { count: number }[];
    }>();
    expect(out.view).toBe("topology");
    expect(out.live).toBe(list.agents.length);
    expect(out.classes).toContainEqual({ class: "orchestrator", count: 1 });
    expect(out.classes).toContainEqual({
      class: "unclassified",
      count: list.agents.filter((a) => a.class === "unclassified").length,
    });
    expect(out.hosts.reduce((sum, h) => sum + h.count, 0)).toBe(out.live);
    // Counts, not names: no agent is listed.
    expect(topo.stdout).not.toContain('"lead"');
    const human = await runBin("agents-list-cli", ["--view", "topology"], { env: target.env });
    expect(human.stdout).toMatch(new RegExp(`^${out.live} live agent\\(s\\) by class: .*\\borchestrator 1\\b`, "m"));
  });

  test("a --json result over 64 KiB arrives whole through a pipe, and a page never drops the one message that passes the budget", async () => {
    // The largest body a message may have, with characters JSON escapes: one message alone is over 64 KiB.
    const body = "\u0001".repeat(65_536);
    const sent = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "bob", "--body-file", "-"],
      {
        env: target.env,
        input: body,
      },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    // Earlier mail waits before it: the pages that hold it stay within the budget, and the cursor leads to it.
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const read = await runBin("agent-inbox-cli", [...as(bob), "--json", ...(cursor ? ["--cursor", cursor] : [])], {
        env: target.env,
      });
      expect(read.exitCode, read.stderr).toBe(0);
      const parsed = read.json<{ messages: { body: string }[]; next_cursor: string | null }>();
      if (parsed.messages.some((m) => m.body === body)) {
        expect(read.stdout.length).toBeGreaterThan(64 * 1024);
        return;
      }
      expect(read.stdout.length).toBeLessThanOrEqual(16 * 1024);
      cursor = parsed.next_cursor;
      expect(cursor).not.toBeNull();
    }
    throw new Error("the 64 KiB message never came");
  });
  test("a reply joins the thread of the message it answers, and the thread reads back through agent-thread-cli", async () => {
    const env = target.env;
    const first = await runBin("agent-send-cli", [...as(alice), "--to", "bob", "--body", "review \u001b[2J PR 9?", "--json"], {
      env,
    });
    const firstId = first.json<{ id: string }>().id;
    const reply = await runBin("agent-send-cli", [...as(bob), "--reply-to", firstId, "--body", "approved"], { env });
    expect(reply.exitCode, reply.stderr).toBe(0);
    expect(reply.stdout).toContain(`in reply to ${firstId}`);
    expect(reply.stdout).toContain("  alice: live");
    // The printed next step is a command line that works as pasted (here with the token file added).
    const next = /read the thread with: (agent-thread-cli .+)$/m.exec(reply.stdout)?.[1] as string;
    expect(next).toBe(`agent-thread-cli --agent-id bob --thread ${firstId}`);

    const human = await runBin("agent-thread-cli", [...next.split(" ").slice(1), "--token-file", bob.tokenFile], { env });
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toContain(`thread ${firstId}: 2 message(s), participants alice, bob`);
    expect(human.stdout).toContain("  | approved");
    expect(human.stdout).not.toMatch(RAW_CONTROL);

    const json = await runBin("agent-thread-cli", [...as(alice), "--thread", firstId, "--json"], { env });
    expect(json.json<{ messages: { from: string; reply_to: string | null; to?: string[] }[] }>().messages).toEqual([
      expect.objectContaining({ from: "alice", reply_to: null, to: ["bob"] }),
      expect.objectContaining({ from: "bob", reply_to: firstId }),
    ]);

    // bob answers without --to: the reply went to alice, who sees it in her inbox as a reply.
    const inbox = await runBin("agent-inbox-cli", [...as(alice), "--json"], { env });
    expect(inbox.json<{ messages: { reply_to: string | null; thread_id: string | null }[] }>().messages.at(-1)).toMatchObject({
      reply_to: firstId,
      thread_id: firstId,
    });
  });

  test("an agent that never received a message can neither answer it nor read its thread", async () => {
    const env = target.env;
    const stranger = await checkInAgent(env, dir, "stranger");
    const secret = await runBin("agent-send-cli", [...as(alice), "--to", "bob", "--body", "between us", "--json"], { env });
    const id = secret.json<{ id: string }>().id;
    const answer = await runBin("agent-send-cli", [...as(stranger), "--reply-to", id, "--body", "me too"], { env });
    expect(answer.exitCode, answer.stderr).toBe(5);
    expect(answer.stderr).toContain("MESSAGE_NOT_FOUND");
    const read = await runBin("agent-thread-cli", [...as(stranger), "--thread", id, "--json"], { env });
    expect(read.exitCode).toBe(5);
    expect(read.stderr).toContain('"code":"NOT_FOUND"');
    expect(read.stdout + read.stderr).not.toContain("between us");
  });
  test("agent-contacts-cli closes an inbox to a sender; the send says refused_by_policy, or fails when nobody accepts", async () => {
    const env = target.env;
    const guard = await checkInAgent(env, dir, "guard");
    const noisy = await checkInAgent(env, dir, "noisy");
    const set = await runBin("agent-contacts-cli", ["policy", ...as(guard), "--policy", "contacts-only"], { env });
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toContain("guard: contacts-only");
    const allowed = await runBin("agent-contacts-cli", ["allow", ...as(guard), "--contact", "alice", "--json"], { env });
    expect(allowed.json()).toMatchObject({ policy: "contacts-only", allow: ["alice"], block: [] });

    const mixed = await runBin("agent-send-cli", [...as(noisy), "--to", "guard,bob", "--body", "hello"], { env });
    expect(mixed.exitCode, mixed.stderr).toBe(0);
    expect(mixed.stdout).toContain("guard: REFUSED BY POLICY");
    expect(mixed.stdout).toContain("bob: live");
    const refused = await runBin("agent-send-cli", [...as(noisy), "--to", "guard", "--body", "hello?", "--json"], { env });
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain('"code":"REFUSED_BY_POLICY"');
    const fromAlice = await runBin("agent-send-cli", [...as(alice), "--to", "guard", "--body", "hi", "--json"], { env });
    expect(fromAlice.json<{ recipients: { outcome: string }[] }>().recipients[0]?.outcome).toBe("live");
    const inbox = await runBin("agent-inbox-cli", [...as(guard), "--json"], { env });
    expect(inbox.json<{ messages: { from: string }[] }>().messages.map((m) => m.from)).toEqual(["alice"]);
  });
  test("agent-channel-cli: members get posts in their inbox with the channel named; outsiders cannot post", async () => {
    const env = target.env;
    const host = await checkInAgent(env, dir, "chan-host");
    const member = await checkInAgent(env, dir, "chan-member");
    const outsider = await checkInAgent(env, dir, "chan-outsider");
    expect((await runBin("agent-channel-cli", ["create", ...as(host), "--channel", "ops"], { env })).exitCode).toBe(0);
    expect((await runBin("agent-channel-cli", ["join", ...as(member), "--channel", "ops"], { env })).exitCode).toBe(0);
    const post = await runBin("agent-channel-cli", ["post", ...as(host), "--channel", "ops", "--body-file", "-"], {
      env,
      input: "deploy \u001b]0;x\u0007 done",
    });
    expect(post.exitCode, post.stderr).toBe(0);
    expect(post.stdout).toContain("to #ops: delivered to chan-member");
    const inbox = await runBin("agent-inbox-cli", [...as(member)], { env });
    expect(inbox.stdout).toMatch(/from chan-host at \S+ in #ops/);
    expect(inbox.stdout).not.toMatch(RAW_CONTROL);
    const refused = await runBin("agent-channel-cli", ["post", ...as(outsider), "--channel", "ops", "--body", "hi", "--json"], {
      env,
    });
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain('"code":"NOT_A_MEMBER"');
    const history = await runBin("agent-channel-cli", ["read", ...as(member), "--channel", "ops", "--json"], { env });
    expect(history.json<{ posts: { from: string }[] }>().posts.map((p) => p.from)).toEqual(["chan-host"]);
  });
  test("agent-search-cli finds the caller's own messages by whole words, and nobody else's", async () => {
    const env = target.env;
    const seeker = await checkInAgent(env, dir, "seeker");
    await runBin("agent-send-cli", [...as(alice), "--to", "seeker", "--body", "Rollback of PR-31 is \u001b[31mdone"], { env });
    await runBin("agent-send-cli", [...as(alice), "--to", "bob", "--body", "rollback of PR-31 for bob only"], { env });
    const found = await runBin("agent-search-cli", [...as(seeker), "--query", "pr 31 ROLLBACK", "--json"], { env });
    expect(found.exitCode, found.stderr).toBe(0);
    expect(found.json<{ words: string[]; messages: { from: string }[] }>()).toMatchObject({
      words: ["pr", "31", "rollback"],
      messages: [{ from: "alice" }],
    });
    const human = await runBin("agent-search-cli", [...as(seeker), "--query", "rollback"], { env });
    expect(human.stdout).toContain("seeker: 1 message(s) with rollback");
    expect(human.stdout).not.toMatch(RAW_CONTROL);
    const empty = await runBin("agent-search-cli", [...as(seeker), "--query", "--- ***"], { env });
    expect(empty.exitCode).toBe(2);
  });
});
