// Auto-wake's store rules on every store: which mail wakes, single-use tokens bound to agent, session and
// messages, one outstanding wake per agent, the hourly cap, and expiry re-arming unread mail.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ackMessages } from "../../app/agent_computer/src/domain/mesh/ack.ts";
import { readInbox } from "../../app/agent_computer/src/domain/mesh/inbox.ts";
import { deliverSystemMessage } from "../../app/agent_computer/src/domain/mesh/notify.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { HOUR_MS, issueWake } from "../../app/agent_computer/src/domain/wake/tokens.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, type MeshClock, openMeshAgents } from "../helpers/mesh.ts";
import { type StoreTarget, storeNames } from "../helpers/stores.ts";

const TUNING = { tokenTtlMs: 60_000, hourlyCap: 3 };

describe.each(storeNames)("auto-wake store rules [%s]", (storeName) => {
  let mesh: MeshAgents;
  let target: StoreTarget;
  let store: Store;
  let clock: MeshClock;
  const sessions = new Map<string, string>();

  const join = async (agentId: string) => {
    const r = await mesh.join(agentId, { ttlSeconds: 86_400 });
    sessions.set(agentId, r.session_id);
  };
  const send = (from: string, to: string, body = "hello") =>
    sendMessage(clock.deps(), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: [to] }, body });
  const issue = (agentId: string, tuning = TUNING) =>
    issueWake(clock.deps(), { agentId: agentId, sessionId: sessions.get(agentId) as string, tuning });
  const backlog = (agentId: string) => store.read((tx) => tx.wake.backlog(sessions.get(agentId) as string, agentId, clock.now));
  const inbox = (agentId: string, wakeToken?: string, limit = 50) =>
    readInbox(clock.deps(), { agentId, token: mesh.token(agentId), limit, wakeToken });
  const issued = async (agentId: string) => {
    const outcome = await issue(agentId);
    if (!outcome.issued) throw new Error(`no wake issued: ${outcome.reason}`);
    return outcome;
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    ({ target, store, clock } = mesh);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("only another party's message or event wakes: never a bounce, never the agent's own mail", async () => {
    await join("wa");
    await join("wb");
    expect((await backlog("wa")).count).toBe(0);
    expect(await issue("wa")).toEqual({ issued: false, reason: "nothing_new" });
    await send("wa", "wa", "note to self");
    await store.write((tx) =>
      deliverSystemMessage(tx, { recipient: "wa", kind: "bounce", body: "bounced", now: clock.now, newId: clock.deps().newId }),
    );
    expect((await backlog("wa")).count).toBe(0);
    await send("wb", "wa");
    await store.write((tx) =>
      deliverSystemMessage(tx, { recipient: "wa", kind: "event", body: "{}", now: clock.now, newId: clock.deps().newId }),
    );
    const b = await backlog("wa");
    expect(b).toMatchObject({ count: 2, outstanding: false });
  });

  test("a token is single use and returns its wake's messages plus newer pending ones", async () => {
    const wake = await issued("wa");
    expect(wake.token).toMatch(/^[0-9a-f]{16}$/);
    expect(wake.count).toBe(2);
    const rows = await target.sql("SELECT token_hash FROM wake_tokens WHERE id = $1", [wake.tokenId]);
    expect(JSON.stringify(rows)).not.toContain(wake.token);
    expect(await issue("wa")).toEqual({ issued: false, reason: "nothing_new" });
    await send("wb", "wa", "newer");
    expect(await backlog("wa")).toMatchObject({ count: 1, outstanding: true });
    expect(await issue("wa")).toEqual({ issued: false, reason: "outstanding" });

    const read = await inbox("wa", wake.token);
    expect(read.wake).toMatchObject({ message_count: 2 });
    expect(read.messages.map((m) => m.body)).toEqual(["hello", "{}", "newer"]);
    expect(read.messages.map((m) => m.kind)).not.toContain("bounce");
    // The newer message was shown in the woken turn, so it does not wake the agent again.
    expect((await backlog("wa")).count).toBe(0);
    await expect(inbox("wa", wake.token)).rejects.toMatchObject({ code: "WAKE_TOKEN_INVALID", exitCode: 4 });
  });

  test("an unknown token, or another agent's, fails with WAKE_TOKEN_INVALID and changes nothing", async () => {
    await send("wa", "wb");
    const theirs = await issued("wb");
    await expect(inbox("wa", theirs.token)).rejects.toMatchObject({ code: "WAKE_TOKEN_INVALID" });
    await expect(inbox("wa", "0123456789abcdef")).rejects.toMatchObject({ code: "WAKE_TOKEN_INVALID" });
    const mine = await inbox("wb", theirs.token);
    expect(mine.wake?.message_count).toBe(1);
  });

  test("an expired token is refused, and its still-unread mail wakes the agent again", async () => {
    await send("wb", "wa", "will expire");
    const wake = await issued("wa");
    clock.advance(TUNING.tokenTtlMs);
    await expect(inbox("wa", wake.token)).rejects.toMatchObject({ code: "WAKE_TOKEN_INVALID" });
    expect(await backlog("wa")).toMatchObject({ count: 1, outstanding: false });
    const again = await issued("wa");
    await inbox("wa", again.token);
  });

  test("acknowledging a wake's messages without its token settles it: new mail may wake again", async () => {
    await join("acker");
    await send("wb", "acker", "ack me");
    await issued("acker");
    const pending = await inbox("acker");
    await ackMessages(clock.deps(), { agentId: "acker", token: mesh.token("acker"), upToSeq: pending.messages.at(-1)?.seq ?? 0 });
    await send("wb", "acker", "after ack");
    expect((await backlog("acker")).outstanding).toBe(false);
    await issued("acker");
  });

  test("the hourly cap stops wakes until the oldest wake of the hour ages out", async () => {
    await join("capped");
    for (let i = 0; i < TUNING.hourlyCap; i++) {
      await send("wb", "capped", `m${i}`);
      const wake = await issued("capped");
      await inbox("capped", wake.token);
      clock.advance(1_000);
    }
    await send("wb", "capped", "over the cap");
    const refused = await issue("capped");
    expect(refused).toMatchObject({ issued: false, reason: "hourly_cap" });
    const first = await target.sql("SELECT MIN(created_at) AS t FROM wake_tokens WHERE agent_name = $1", ["capped"]);
    expect(refused.issued === false && "retryAt" in refused && refused.retryAt).toBe(Number(first[0]?.t) + HOUR_MS + 1);
    clock.advance(HOUR_MS);
    await issued("capped");
  });

  test("racing watchers: exactly one of several concurrent issues gets the agent's outstanding wake", async () => {
    await join("raced");
    await send("wb", "raced");
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => issue("raced")));
    expect(outcomes.filter((o) => o.issued)).toHaveLength(1);
    const rows = await target.sql("SELECT COUNT(*) AS n FROM wake_tokens WHERE agent_name = $1 AND state = 'outstanding'", [
      "raced",
    ]);
    expect(Number(rows[0]?.n)).toBe(1);
  });

  test("a token of an earlier session is unknown to the next one", async () => {
    await join("cycler");
    await send("wb", "cycler");
    const wake = await issued("cycler");
    clock.advance(86_400_000 + 1);
    await join("cycler");
    await expect(inbox("cycler", wake.token)).rejects.toMatchObject({ code: "WAKE_TOKEN_INVALID" });
  });
});
