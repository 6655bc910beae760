// The multi-host suite's link failures: a host cut off past a session's ttl, packets that vanish, a link that goes
// silent under an open connection (multi-host.test.ts).
import { expect } from "vitest";
import { waitFor } from "../helpers/automation.ts";
import {
  type Agent,
  alive,
  as,
  checkIn,
  type DirectoryJson,
  type HostsUnderTest,
  type InboxJson,
  type SendJson,
  unavailable,
} from "../helpers/multi-host.ts";
import type { TestHost } from "../helpers/netns-hosts.ts";

/** a host cut off past a session's ttl: its agents turn stale, its runs are rescued, its mail bounces; then it carries on. */
export const hostCutOff = async (h: HostsUnderTest): Promise<void> => {
  const { hosts, agents, sql, holderOf, runRow, heldRuns, allSucceeded } = h;
  const [first, , cutHost] = hosts as [TestHost, TestHost, TestHost];
  const sender = agents[0] as Agent;
  const held = await heldRuns(sender, 6);
  expect([...held.held.values()].map((ids) => ids.length)).toEqual([2, 2, 2]);
  const stranded = held.held.get(cutHost.name) as string[];
  held.release(held.runIds.filter((id) => !stranded.includes(id)));

  const idle = await checkIn(cutHost, "idle-3", ["--ttl-seconds", "60"]);
  const before = await as<SendJson>(sender, "agent-send-cli", ["--to", idle.id, "--body", "sent while its host was up"]);
  expect(before.recipients[0]?.outcome).toBe("live");

  await cutHost.cut();
  try {
    // A CLI on the cut host fails in bounded time (its connect timeout), as unavailable with the retry hint.
    const offline = await cutHost.run("agent-inbox-cli", ["--agent-id", idle.id, "--token-file", idle.tokenFile, "--json"]);
    expect(unavailable(offline)).toMatchObject({ hint: expect.stringContaining("retry") });

    // Elsewhere: the stranded runs finish as attempt 2 on the hosts still connected.
    await allSucceeded(stranded, "the cut host's runs to be rescued");
    for (const id of stranded) {
      expect(await runRow(id)).toMatchObject({ state: "succeeded", attempt: 2 });
      expect((await holderOf(id, 2)).name).not.toBe(cutHost.name);
    }
    // On the cut host: its worker stops the attempts it can no longer renew, instead of letting them run on.
    await waitFor(
      async () => (stranded.every((id) => !alive(held.pidOf(id))) ? true : undefined),
      30_000,
      "the cut host's worker to stop its fenced attempts",
    );

    // Once its ttl has passed, the idle agent is stale in the directory of another host.
    await waitFor(
      async () => {
        const r = await first.run("agents-list-cli", ["--include-stale", "--json"]);
        const entry = r.json<{ agents: DirectoryJson[] }>().agents.find((a) => a.agent_id === idle.id);
        return entry && !entry.alive ? entry : undefined;
      },
      120_000,
      "the cut host's agent to turn stale elsewhere",
    );
    // Stored, but no recipient will read it: printed on stdout all the same, and exit 9 NOT_DELIVERED.
    const during = await as<SendJson>(
      sender,
      "agent-send-cli",
      ["--to", idle.id, "--body", "sent while its host was cut off"],
      9,
    );
    expect(during.recipients[0]?.outcome).toBe("not_checked_in");
    const sent = await as<{ messages: { id: string; recipients: { agent_id: string; state: string }[] }[] }>(
      sender,
      "agent-sent-cli",
      [],
    );
    const stateOf = (id: string) => sent.messages.find((m) => m.id === id)?.recipients[0]?.state;
    expect([stateOf(before.id), stateOf(during.id)]).toEqual(["expired_undelivered", "not_checked_in"]);
    const senderInbox = await as<InboxJson>(sender, "agent-inbox-cli", ["--limit", "100"]);
    const bounces = senderInbox.messages.filter((m) => m.kind === "bounce" && m.body.includes(before.id));
    expect(bounces.length).toBe(1);
  } finally {
    await cutHost.heal();
  }
  // Its CLIs carry on without manual steps: a check-in starts a new session, which sees neither old message.
  // The first call may still find the link coming up: then it is told to retry (exit 8), and a retry works.
  const back = await waitFor(
    async () => {
      const r = await cutHost.run("agent-checkin-cli", [
        "--agent-id",
        idle.id,
        "--token-file",
        idle.tokenFile,
        "--ttl-seconds",
        "60",
        "--confirm",
        "--json",
      ]);
      if (r.exitCode === 8) return undefined;
      expect(r.exitCode, r.stderr).toBe(0);
      return r.json<{ session_id: string }>();
    },
    30_000,
    "a check-in on the cut host once its link is back",
  );
  expect(back.session_id).toBeTruthy();
  const inbox = await as<InboxJson>(idle, "agent-inbox-cli", []);
  expect(inbox.messages).toEqual([]);
  // Its worker carries on: with every slot taken again, it holds two of six new runs and finishes them.
  const again = await heldRuns(sender, 6);
  expect(again.held.get(cutHost.name)?.length).toBe(2);
  again.release(again.runIds);
  await allSucceeded(again.runIds, "the runs after the link came back");
  const lost = await sql(
    "SELECT attempt, outcome FROM automation_attempts WHERE run_id = ANY($1) AND attempt = 1 ORDER BY run_id",
    [stranded],
  );
  expect(lost.map((a) => a.outcome)).toEqual(["lost", "lost"]);
};

/** a host whose packets to PostgreSQL vanish: its CLIs exit 8 after their connect timeout instead of hanging. */
export const packetsVanish = async (h: HostsUnderTest): Promise<void> => {
  const { hosts, agents } = h;
  const [, , silent] = hosts as [TestHost, TestHost, TestHost];
  const agent = agents[2] as Agent;
  await silent.silence();
  try {
    const r = await silent.run("agent-inbox-cli", ["--agent-id", agent.id, "--token-file", agent.tokenFile, "--json"]);
    expect(unavailable(r)).toMatchObject({ hint: expect.stringContaining("retry") });
  } finally {
    await silent.unsilence();
  }
  const back = await silent.run("agent-inbox-cli", ["--agent-id", agent.id, "--token-file", agent.tokenFile, "--json"]);
  expect(back.exitCode, back.stderr).toBe(0);
};

/** a link that goes silent under an open connection: the CLI exits 8 at the answer deadline, nothing written. */
export const silentLink = async (h: HostsUnderTest): Promise<void> => {
  const { world, hosts, agents, sql } = h;
  const [receiving, , silent] = hosts as [TestHost, TestHost, TestHost];
  const from = agents[2] as Agent;
  const to = agents.find((a) => a.host === receiving) as Agent;
  // The recipient's row held by the test, so the send waits on the server with its connection open.
  const holder = new Bun.SQL({ url: world.pg.url("127.0.0.1"), max: 1 });
  const held = await holder.reserve();
  const body = `sent-into-silence-${crypto.randomUUID()}`;
  try {
    await held.unsafe("BEGIN");
    await held.unsafe("SELECT name FROM agents WHERE name = $1 FOR UPDATE", [to.id]);
    const started = performance.now();
    const send = silent.run(
      "agent-send-cli",
      ["--agent-id", from.id, "--token-file", from.tokenFile, "--to", to.id, "--body", body, "--json"],
      { timeoutMs: 90_000 },
    );
    await waitFor(
      async () =>
        (
          await sql(
            "SELECT 1 AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%agents%' AND pid <> pg_backend_pid()",
          )
        ).length > 0
          ? true
          : undefined,
      20_000,
      "the send waiting on the held row",
    );
    // Both ways: the server's lock_timeout answer (5 s from now) never reaches the host.
    await silent.silence("both");
    const r = await send;
    const waited = performance.now() - started;
    await silent.unsilence();
    const error = unavailable(r);
    expect(error).toMatchObject({ outcome: "not_applied" });
    expect(String(error.message)).toMatch(/did not answer for 35 s.*nothing was written/);
    expect(waited).toBeGreaterThan(35_000);
    expect(waited).toBeLessThan(75_000);
  } finally {
    await silent.unsilence().catch(() => undefined);
    await held.unsafe("ROLLBACK").catch(() => undefined);
    held.release();
    await holder.close();
  }
  expect(await sql("SELECT id FROM messages WHERE body = $1", [body])).toEqual([]);
  const back = await silent.run("agent-inbox-cli", ["--agent-id", from.id, "--token-file", from.tokenFile, "--json"]);
  expect(back.exitCode, back.stderr).toBe(0);
};
