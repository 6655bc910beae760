// agent-inbox-cli --wait through the real binaries, on every store: it returns at once when mail waits, wakes
// when another process sends, and at the deadline exits 7 having consumed nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

interface Inbox {
  count: number;
  messages: { seq: number; body: string }[];
}

describe.each(storeNames)("agent-inbox-cli --wait [%s]", (storeName) => {
  let target: StoreTarget;
  let dir: string;
  let alice: TestAgent;
  let bob: TestAgent;
  const as = (agent: TestAgent) => ["--agent-id", agent.id, "--token-file", agent.tokenFile];
  const send = async (body: string) => {
    const sent = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "bob", "--body", body],
      {
        env: target.env,
      },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
  };
  const ackAll = async () => {
    const read = await runBin("agent-inbox-cli", [...as(bob), "--json"], { env: target.env });
    const seq = read.json<Inbox>().messages.at(-1)?.seq;
    if (seq !== undefined)
      expect((await runBin("agent-ack-cli", [...as(bob), "--up-to-seq", String(seq)], { env: target.env })).exitCode).toBe(0);
  };

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    dir = mkdtempSync(join(tmpdir(), "ac-inbox-wait-"));
    alice = await checkInAgent(target.env, dir, "alice", ["--role", "builder"]);
    bob = await checkInAgent(target.env, dir, "bob", ["--role", "reviewer"]);
  });
  afterAll(async () => {
    await target?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("returns at once when a message already waits", async () => {
    await send("already-here-1");
    const started = Date.now();
    const waited = await runBin("agent-inbox-cli", [...as(bob), "--wait", "60", "--json"], { env: target.env });
    expect(waited.exitCode, waited.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(waited.json<Inbox>().messages.map((m) => m.body)).toEqual(["already-here-1"]);
    await ackAll();
  });

  test("returns when another process sends during the wait, well before the slow poll would look", async () => {
    const started = Date.now();
    const waiting = runBin("agent-inbox-cli", [...as(bob), "--wait", "60", "--json"], { env: target.env }).then((r) => ({
      r,
      at: Date.now(),
    }));
    await Bun.sleep(2500);
    await send("arrived-later-2");
    const sentAt = Date.now();
    const { r, at } = await waiting;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<Inbox>().messages.map((m) => m.body)).toEqual(["arrived-later-2"]);
    // It was really waiting (not answering a message that was already there) and the change hint woke it: the
    // fallback poll alone looks every 2 s.
    expect(at - started).toBeGreaterThanOrEqual(2500);
    expect(at - sentAt).toBeLessThan(1000);
    await ackAll();
  });

  test("at the deadline exits 7 (TIMEOUT) having consumed nothing; mail sent after is still unread", async () => {
    const started = Date.now();
    const waited = await runBin("agent-inbox-cli", [...as(bob), "--wait", "2"], { env: target.env });
    expect(waited.exitCode, waited.stdout).toBe(7);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(waited.stdout).toBe("");
    expect(waited.stderr).toContain("TIMEOUT");
    expect(waited.stderr).toContain("nothing was read or acknowledged");
    expect(waited.stderr.length).toBeLessThan(1000);
    const json = await runBin("agent-inbox-cli", [...as(bob), "--wait", "1", "--json"], { env: target.env });
    expect(json.exitCode).toBe(7);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: "TIMEOUT", waited_s: 1 });
    await send("after-timeout-3");
    const read = await runBin("agent-inbox-cli", [...as(bob), "--json"], { env: target.env });
    expect(read.json<Inbox>().messages.map((m) => m.body)).toEqual(["after-timeout-3"]);
    const sent = await runBin("agent-sent-cli", ["--agent-id", "alice", "--token-file", alice.tokenFile, "--json"], {
      env: target.env,
    });
    expect(sent.stdout).toContain("pending");
    await ackAll();
  });

  test("a session that is not checked in fails at once with NOT_CHECKED_IN, it does not wait", async () => {
    const carol = await checkInAgent(target.env, dir, "carol", ["--role", "builder"]);
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = 'carol'");
    const waited = await runBin("agent-inbox-cli", [...as(carol), "--wait", "30"], { env: target.env });
    expect(waited.exitCode).toBe(4);
    expect(waited.stderr).toContain("NOT_CHECKED_IN");
  });

  test.each([
    [["--wait", "0"], "--wait"],
    [["--wait", "3601"], "--wait"],
    [["--wait", "soon"], "--wait"],
    [["--wait", "1.5"], "--wait"],
    [["--wait", "5", "--peek"], "--wait"],
    [["--wait", "5", "--wake-token", "0123456789abcdef"], "--wait"],
  ])("bad input %j exits 2 naming the flag", async (args, flag) => {
    const r = await runBin("agent-inbox-cli", [...as(bob), ...args], { env: target.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(flag);
    expect(r.stderr).not.toContain("unknown option");
  });
});
