// The multi-host suite's mesh scenarios: messages, the directory and auto-wake across three hosts (multi-host.test.ts).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { WAKE_PROMPT_PATTERN } from "../../app/agent_computer/src/domain/wake/prompt.ts";
import { startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { waitFor } from "../helpers/automation.ts";
import { type Agent, as, type DirectoryJson, type HostsUnderTest, type InboxJson, type SendJson } from "../helpers/multi-host.ts";
import type { HostWorker, TestHost } from "../helpers/netns-hosts.ts";

/** agents on three hosts message each other: every message delivered once, outcomes truthful. */
export const messageEachOther = async (h: HostsUnderTest): Promise<void> => {
  const { agents } = h;
  const PER_PAIR = 5;
  const sends = await Promise.all(
    agents.map(async (from) => {
      const others = agents.filter((a) => a !== from).flatMap((a) => ["--to", a.id]);
      const results = [];
      for (let k = 0; k < PER_PAIR; k++)
        results.push(await as<SendJson>(from, "agent-send-cli", [...others, "--body", `${from.id} #${k}`]));
      return results;
    }),
  );
  const outcomes = sends.flat().flatMap((s) => s.recipients.map((r) => r.outcome));
  expect(outcomes).toEqual(Array(agents.length * PER_PAIR * 2).fill("live"));

  for (const reader of agents) {
    const inbox = await as<InboxJson>(reader, "agent-inbox-cli", ["--limit", "100"]);
    const bodies = inbox.messages.map((m) => m.body).sort();
    const expected = agents
      .filter((a) => a !== reader)
      .flatMap((a) => Array.from({ length: PER_PAIR }, (_, k) => `${a.id} #${k}`))
      .sort();
    expect(bodies).toEqual(expected);
    expect(new Set(inbox.messages.map((m) => m.id)).size).toBe(expected.length);
    const seqs = inbox.messages.map((m) => m.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    await as(reader, "agent-ack-cli", ["--up-to-seq", String(seqs.at(-1))]);
  }
  for (const sender of agents) {
    const sent = await as<{ messages: { recipients: { state: string }[] }[] }>(sender, "agent-sent-cli", []);
    expect(sent.messages.flatMap((m) => m.recipients.map((r) => r.state))).toEqual(Array(PER_PAIR * 2).fill("acked"));
  }
};

/** the directory says which host each agent is on, and that a remote agent's liveness rests on age. */
export const directoryByHost = async (h: HostsUnderTest): Promise<void> => {
  const { hosts, workers, hostLocal } = h;
  const [first, second] = hosts as [TestHost, TestHost];
  // An agent registered with its process id: only its own host can probe that pid.
  const pidHolder = (workers.get(first.name) as HostWorker).pid;
  const stat = readFileSync(`/proc/${pidHolder}/stat`, "utf8");
  const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] as string;
  const registered = await first.run("register-agent-cli", [
    "--agent-id",
    "pid-agent",
    "--role",
    "builder",
    "--capabilities",
    "ts",
    "--agent-pid",
    String(pidHolder),
    "--agent-pid-start",
    start,
    "--host-shell-pids",
    `${pidHolder},1`,
    "--json",
  ]);
  expect(registered.exitCode, registered.stderr).toBe(0);
  hostLocal.add(start);

  const directoryOn = async (host: TestHost) => {
    const r = await host.run("agents-list-cli", ["--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    return new Map(r.json<{ agents: DirectoryJson[] }>().agents.map((a) => [a.agent_id, a]));
  };
  const onFirst = await directoryOn(first);
  const onSecond = await directoryOn(second);
  for (const [i, h] of hosts.entries()) {
    expect(onFirst.get(`agent-${i + 1}`)).toMatchObject({ host: h.name, alive: true, liveness_evidence: "age" });
    expect(onSecond.get(`agent-${i + 1}`)).toMatchObject({ host: h.name, alive: true, liveness_evidence: "age" });
  }
  expect(onFirst.get("pid-agent")).toMatchObject({ host: first.name, alive: true, liveness_evidence: "pid" });
  expect(onSecond.get("pid-agent")).toMatchObject({ host: first.name, alive: true, liveness_evidence: "age" });
};

/** auto-wake across hosts: an agent armed on one host is woken by that host's worker for mail from another. */
export const autoWakeAcrossHosts = async (h: HostsUnderTest): Promise<void> => {
  const { hosts, workers, agents, hostLocal } = h;
  const [, second] = hosts as [TestHost, TestHost];
  const fake = await startFakeHerdr({ timing: { submitDelayMs: 20, turnStartMs: 20, turnMs: 100 } });
  try {
    const pane = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp" });
    const paneEnv = { ...fake.env, HERDR_ENV: "1", HERDR_PANE_ID: pane.pane_id };
    const armed = await second.run(
      "agent-checkin-cli",
      ["--agent-id", "woken-2", "--herdr-pane", pane.pane_id, "--confirm", "--json"],
      {
        env: paneEnv,
      },
    );
    expect(armed.exitCode, armed.stderr).toBe(0);
    const wake = armed.json<{ herdr_wake: { state: string; watcher?: { pid: number } } }>().herdr_wake;
    // Served by the host's own worker, not by a watcher of another host (nor a light one started beside it).
    expect(wake).toMatchObject({ state: "armed", watcher: { pid: (workers.get(second.name) as HostWorker).pid } });
    hostLocal.add(pane.pane_id);
    const wakeDir = join(second.env.AGENT_COMPUTER_HOME as string, "wake");
    for (const dir of readdirSync(wakeDir)) hostLocal.add(join(wakeDir, dir));
    const woken: Agent = { id: "woken-2", host: second, tokenFile: join(second.home, "woken-2.token") };
    writeFileSync(woken.tokenFile, armed.json<{ agent_token: string }>().agent_token, { mode: 0o600 });

    await as(agents[0] as Agent, "agent-send-cli", ["--to", woken.id, "--body", "from the first host"]);
    const [prompt] = await waitFor(
      async () => {
        const prompts = await fake.prompts(pane.pane_id);
        return prompts.length > 0 ? prompts : undefined;
      },
      30_000,
      "the wake prompt",
    );
    expect(prompt?.text).toMatch(WAKE_PROMPT_PATTERN);
    const read = await as<InboxJson>(woken, "agent-inbox-cli", ["--wake-token", (prompt?.text ?? "").slice(-16)]);
    expect(read.messages.map((m) => m.body)).toEqual(["from the first host"]);
  } finally {
    await fake.stop();
  }
};
