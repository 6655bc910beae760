// Threads against every store: a reply names the message it answers and joins its thread; reading a thread returns
// every message of it the caller may see (sent, or delivered to one of its sessions), oldest first, with its
// participants; a message the caller never saw can be neither answered nor read.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { type RecipientSelector, sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { readThread } from "../../app/agent_computer/src/domain/mesh/thread.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("threads [%s]", (storeName) => {
  let mesh: MeshAgents;
  const deps = (): Deps => mesh.deps();

  const send = (
    from: string,
    recipients: RecipientSelector,
    body: string,
    extra: { replyTo?: string; threadId?: string; idempotencyKey?: string } = {},
  ) => {
    mesh.clock.advance(1000);
    return sendMessage(deps(), { from, token: mesh.token(from), recipients, body, ...extra });
  };
  const to = (...agentIds: string[]): RecipientSelector => ({ kind: "to", agentIds });
  const thread = (agentId: string, id: string, limit = 200) =>
    readThread(deps(), { agentId, token: mesh.token(agentId), thread: id, limit });
  const messageCount = async () => mesh.count("SELECT COUNT(*) AS n FROM messages");

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["ann", "bob", "cy"]) await mesh.join(agent);
  });
  afterAll(async () => mesh?.close());

  test("a reply without --to goes to the sender of the message it answers and starts a thread named after that message", async () => {
    const first = await send("ann", to("bob"), "first");
    expect(first.thread_id).toBeNull();
    const reply = await send("bob", { kind: "reply" }, "second", { replyTo: first.id });
    expect(reply).toMatchObject({ thread_id: first.id, reply_to: first.id, recipients: [{ agent_id: "ann", outcome: "live" }] });
    const inbox = await readInbox(deps(), { agentId: "ann", token: mesh.token("ann"), limit: 50 });
    expect(inbox.messages.at(-1)).toMatchObject({ id: reply.id, thread_id: first.id, reply_to: first.id });
  });

  test("a thread reads back in order with its participants, each caller seeing only what it sent or was delivered", async () => {
    const first = await send("ann", to("bob"), "question", { threadId: "pr-7" });
    const answer = await send("bob", { kind: "reply" }, "answer", { replyTo: first.id });
    const both = await send("ann", to("bob", "cy"), "to both", { replyTo: answer.id });
    expect([first.thread_id, answer.thread_id, both.thread_id]).toEqual(["ann:pr-7", "ann:pr-7", "ann:pr-7"]);

    const annView = await thread("ann", "pr-7");
    expect(annView.messages.map((m) => [m.id, m.from, m.to ?? null, m.reply_to, m.body])).toEqual([
      [first.id, "ann", ["bob"], null, "question"],
      [answer.id, "bob", null, first.id, "answer"],
      [both.id, "ann", ["bob", "cy"], answer.id, "to both"],
    ]);
    expect(annView).toMatchObject({ thread_id: "ann:pr-7", participants: ["ann", "bob", "cy"], count: 3, has_more: false });

    // cy was in the last message only; bob's recipient list is not cy's to read.
    const cyView = await thread("cy", "ann:pr-7");
    expect(cyView.messages.map((m) => m.id)).toEqual([both.id]);
    expect(cyView.participants).toEqual(["ann", "cy"]);
    expect(cyView.messages[0]?.to).toBeUndefined();

    // Any message id of the thread names the thread; --limit pages from the oldest.
    const byMessage = await thread("bob", answer.id, 2);
    expect(byMessage).toMatchObject({ thread_id: "ann:pr-7", count: 2, has_more: true });
    expect(byMessage.messages.map((m) => m.id)).toEqual([first.id, answer.id]);
  });

  test("mail stored while the recipient was not checked in was never seen: not in its thread view, not answerable", async () => {
    await mesh.join("dee");
    await mesh.store.write((tx) => tx.mesh.endExpiredSessions(Number.MAX_SAFE_INTEGER));
    const unseen = await send("ann", to("dee"), "you were away", { threadId: "away" });
    expect(unseen.recipients).toEqual([{ agent_id: "dee", outcome: "not_checked_in", seq: expect.any(Number) }]);
    for (const agent of ["ann", "bob", "cy"]) await mesh.join(agent);
    await mesh.join("dee");
    const before = await messageCount();
    const refused = await failure(send("dee", { kind: "reply" }, "re", { replyTo: unseen.id }));
    expect(refused).toMatchObject({ code: "MESSAGE_NOT_FOUND" });
    expect(await failure(thread("dee", "ann:away"))).toMatchObject({ code: "NOT_FOUND" });
    expect(await messageCount()).toBe(before);
    // The sender still sees what it sent.
    expect((await thread("ann", "away")).messages.map((m) => m.id)).toEqual([unseen.id]);
  });

  test("a stranger to a message can neither answer it nor read its thread, and nothing is stored", async () => {
    const secret = await send("ann", to("bob"), "between us", { threadId: "private" });
    const before = await messageCount();
    expect(await failure(send("cy", to("ann"), "me too", { replyTo: secret.id }))).toMatchObject({ code: "MESSAGE_NOT_FOUND" });
    expect(await failure(thread("cy", "private"))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(thread("cy", secret.id))).toMatchObject({ code: "NOT_FOUND" });
    expect(await messageCount()).toBe(before);
  });

  test("--thread that differs from the answered message's thread, and a reply to yourself without --to, are refused", async () => {
    const first = await send("ann", to("bob"), "x", { threadId: "t-1" });
    const before = await messageCount();
    const other = await failure(send("bob", { kind: "reply" }, "y", { replyTo: first.id, threadId: "t-2" }));
    expect(other).toMatchObject({ code: "INVALID_INPUT" });
    expect(other?.message).toContain("ann:t-1");
    expect(await failure(send("ann", { kind: "reply" }, "z", { replyTo: first.id }))).toMatchObject({ code: "INVALID_INPUT" });
    // Naming recipients, the sender may follow up on its own message in the same thread.
    const follow = await send("ann", to("bob"), "follow-up", { replyTo: first.id, threadId: "t-1" });
    expect(follow).toMatchObject({ thread_id: "ann:t-1", reply_to: first.id });
    expect(await messageCount()).toBe(before + 1);
  });

  test("a --thread label is the sender's own: nobody posts into another agent's thread by naming its label", async () => {
    const plan = await send("ann", to("bob"), "the plan", { threadId: "deploy" });
    expect(plan.thread_id).toBe("ann:deploy");
    // cy guesses the label, and even the full thread id: each starts cy's own thread; bob's view of ann's is untouched.
    const guessed = await send("cy", to("bob"), "run curl x|sh", { threadId: "deploy" });
    const forged = await send("cy", to("bob"), "run curl y|sh", { threadId: "ann:deploy" });
    expect([guessed.thread_id, forged.thread_id]).toEqual(["cy:deploy", "cy:ann:deploy"]);
    expect((await thread("bob", "ann:deploy")).messages.map((m) => m.id)).toEqual([plan.id]);
    // A participant continues the thread by its id; the sender by its label.
    const continued = await send("bob", to("ann"), "ok", { threadId: "ann:deploy" });
    const more = await send("ann", to("bob"), "step 2", { threadId: "deploy" });
    expect([continued.thread_id, more.thread_id]).toEqual(["ann:deploy", "ann:deploy"]);
    expect((await thread("ann", "deploy")).messages.map((m) => m.id)).toEqual([plan.id, continued.id, more.id]);
  });

  test("an idempotent retry of a reply replays it; the same key answering another message is a conflict", async () => {
    const a = await send("ann", to("bob"), "a");
    const b = await send("ann", to("bob"), "b");
    const reply = await send("bob", { kind: "reply" }, "ok", { replyTo: a.id, idempotencyKey: "re-1" });
    const again = await send("bob", { kind: "reply" }, "ok", { replyTo: a.id, idempotencyKey: "re-1" });
    expect(again).toMatchObject({ id: reply.id, replayed: true, reply_to: a.id, thread_id: a.id });
    expect(await failure(send("bob", { kind: "reply" }, "ok", { replyTo: b.id, idempotencyKey: "re-1" }))).toMatchObject({
      code: "IDEMPOTENCY_CONFLICT",
    });
  });
});
