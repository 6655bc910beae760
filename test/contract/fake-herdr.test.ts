// Black-box contract of the Herdr test double: spawns the fake `herdr` executable and holds its output to the
// real Herdr 0.8 CLI contract (docs/herdr-facts.md §1, §8) and to Herdr's published API schema.
import { mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { herdrSchemaProblems } from "../fixtures/fake-herdr/herdr-schema.ts";
import { runHerdrCli } from "../fixtures/fake-herdr/run-cli.ts";
import { requestOverSocket } from "../fixtures/fake-herdr/socket-client.ts";

// biome-ignore lint/suspicious/noExplicitAny: envelopes are checked against the JSON schema, not TS types
type Json = any;

const GATE_MS = 1500;
let fake: FakeHerdr;
const resultTypes = new Set<string>();

const keysSorted = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.every(keysSorted);
  if (value === null || typeof value !== "object") return true;
  const keys = Object.keys(value);
  return keys.join("\n") === [...keys].sort().join("\n") && Object.values(value).every(keysSorted);
};

/** One compact JSON line, keys sorted like serde_json without preserve_order, valid against the schema. */
const envelope = (text: string, kind: "success_response" | "error_response"): Json => {
  expect(text.indexOf("\n")).toBe(text.length - 1);
  const value = JSON.parse(text);
  expect(keysSorted(value)).toBe(true);
  expect(herdrSchemaProblems(kind, value)).toEqual([]);
  if (kind === "success_response") resultTypes.add(value.result.type);
  return value;
};

const ok = async (args: string[]): Promise<Json> => {
  const run = await runHerdrCli(fake, args);
  expect({ exit: run.exitCode, stderr: run.stderr }).toEqual({ exit: 0, stderr: "" });
  return envelope(run.stdout, "success_response").result;
};

const fails = async (args: string[], code: string, on: Pick<FakeHerdr, "env"> = fake): Promise<Json> => {
  const run = await runHerdrCli(on, args);
  expect({ exit: run.exitCode, stdout: run.stdout }).toEqual({ exit: 1, stdout: "" });
  const value = envelope(run.stderr, "error_response");
  expect(value.error.code).toBe(code);
  return value;
};

const usageError = async (args: string[], message: string): Promise<void> => {
  const run = await runHerdrCli(fake, args);
  expect({ exit: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({ exit: 2, stdout: "", stderr: `${message}\n` });
};

const waitUntil = async (probe: () => Promise<boolean>): Promise<void> => {
  for (const started = Date.now(); Date.now() - started < 15_000; await new Promise((r) => setTimeout(r, 25))) {
    if (await probe()) return;
  }
  throw new Error("condition not reached within 15 s");
};

const agent = async (target: string): Promise<Json> => (await ok(["agent", "get", target])).agent;

beforeAll(async () => {
  fake = await startFakeHerdr({ timing: { activityGateMs: GATE_MS, turnStartMs: 30, turnMs: 150, startupMs: 100 } });
});
afterAll(async () => {
  await fake?.stop();
});

describe("fake herdr: output contract", () => {
  it("answers every command kind with a schema-valid, key-sorted envelope", async () => {
    const created = await ok(["workspace", "create", "--cwd", "/tmp/contract", "--label", "contract"]);
    const workspaceId = created.workspace.workspace_id;
    expect(workspaceId).toMatch(/^w[1-9A-Z0]+$/);
    await ok(["workspace", "list"]);
    await ok(["workspace", "get", workspaceId]);
    const tab = await ok(["tab", "create", "--workspace", workspaceId, "--cwd", "/tmp/contract/a", "--no-focus"]);
    await ok(["tab", "list", "--workspace", workspaceId]);
    await ok(["tab", "get", tab.tab.tab_id]);
    const shell = tab.root_pane.pane_id;
    expect(shell).toMatch(/^w[1-9A-Z0]+:p[1-9A-Z0]+$/);
    expect(tab.root_pane.agent_status).toBe("unknown");
    const split = await ok(["pane", "split", shell, "--direction", "right", "--no-focus"]);
    await ok(["pane", "list"]);
    await ok(["pane", "get", split.pane.pane_id]);
    const started = await ok(["agent", "start", "contract-rev", "--kind", "claude", "--pane", shell, "--", "--model", "x"]);
    expect(started.argv).toEqual(["claude", "--model", "x"]);
    expect(started.agent).toMatchObject({ name: "contract-rev", agent: "claude", agent_status: "idle", interactive_ready: true });
    await ok(["agent", "list"]);
    await ok(["agent", "prompt", "contract-rev", "no wait"]);
    await ok(["agent", "prompt", shell, "with wait", "--wait", "--timeout", "10000"]);
    await ok(["agent", "wait", "contract-rev", "--timeout", "10000"]);
    await ok(["agent", "rename", "contract-rev", "contract-two"]);
    await ok(["agent", "focus", "contract-two"]);
    await ok(["pane", "close", split.pane.pane_id]);
    await ok(["tab", "close", tab.tab.tab_id]);
    await ok(["workspace", "close", workspaceId]);
    await fails(["pane", "get", shell], "pane_not_found");
    expect([...resultTypes].sort()).toEqual(
      ["agent_info", "agent_list", "agent_prompted", "agent_started", "ok", "pane_info", "pane_list", "tab_created", "tab_info"]
        .concat(["tab_list", "workspace_created", "workspace_info", "workspace_list"])
        .sort(),
    );
  });

  it("reports a pane's cwd as the shell's own directory: symlinks resolved, no trailing slash", async () => {
    const real = realpathSync(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "cwd-real-")));
    const link = join(realpathSync(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "cwd-link-"))), "to-real");
    symlinkSync(real, link);
    const created = await ok(["workspace", "create", "--cwd", `${link}/`, "--no-focus"]);
    expect(created.root_pane.cwd).toBe(real);
    const split = await ok(["pane", "split", created.root_pane.pane_id, "--direction", "down", "--cwd", `${real}//`]);
    expect(split.pane.cwd).toBe(real);
    const agentInPane = await fake.script({ op: "createAgent", kind: "claude", cwd: `${link}/`, name: "resolved" });
    expect(agentInPane.cwd).toBe(real);
    await ok(["workspace", "close", created.workspace.workspace_id]);
  });

  it("sends only schema-valid requests and answers pane reads with a schema-valid pane_read", async () => {
    const worker = await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp/reads", name: "reader" });
    await fake.script({ op: "setOutput", paneId: worker.pane_id, text: "one\ntwo\nthree" });
    for (const [method, params] of [
      ["pane.read", { pane_id: worker.pane_id }],
      ["agent.read", { target: "reader" }],
    ] as const) {
      const response = await requestOverSocket(fake.socketPath, { id: "t", method, params: { ...params, source: "recent" } });
      expect(herdrSchemaProblems("success_response", response)).toEqual([]);
    }
    const requests = await fake.requests();
    expect(requests.length).toBeGreaterThan(20);
    for (const request of requests) expect([request, herdrSchemaProblems("request", request)]).toEqual([request, []]);
  });

  it("prints reads as raw text without an added newline", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/raw", name: "raw" })).pane_id;
    await fake.script({ op: "setOutput", paneId: pane, text: "alpha\nbeta\ngamma" });
    const read = await runHerdrCli(fake, ["pane", "read", pane, "--source", "recent", "--lines", "2"]);
    expect({ exit: read.exitCode, stdout: read.stdout }).toEqual({ exit: 0, stdout: "beta\ngamma" });
    const agentRead = await runHerdrCli(fake, ["agent", "read", "raw", "--source", "visible"]);
    expect(agentRead.stdout).toBe("alpha\nbeta\ngamma");
  });

  it("puts API errors on stderr as the error envelope with exit 1", async () => {
    const value = await fails(["agent", "get", "nobody"], "agent_not_found");
    expect(value).toEqual({ error: { code: "agent_not_found", message: "agent target nobody not found" }, id: "cli:agent:get" });
    await fails(["agent", "prompt", "raw", ""], "empty_agent_prompt");
    await fails(["agent", "start", "Bad.Name", "--kind", "claude", "--pane", "w1:p1"], "invalid_agent_name");
  });

  it("exits 2 with plain text for usage errors", async () => {
    await usageError(["agent", "get"], "usage: herdr agent get <target>");
    await usageError(["agent", "prompt", "raw", "hi", "--until", "idle"], "--until requires --wait");
    await usageError(["agent", "prompt", "raw", "hi", "--timeout", "5"], "--timeout requires --wait");
    await usageError(["agent", "prompt", "raw", "hi", "extra"], "unknown option: extra");
    await usageError(["agent", "wait", "raw", "--bogus"], "unknown option: --bogus");
    await usageError(["agent", "start", "x", "--kind", "vim", "--pane", "w1:p1"], "unsupported agent kind: vim");
    await usageError(["pane", "close", "w1:p1", "w1:p2"], "usage: herdr pane close <pane_id>");
    const badSource = await runHerdrCli(fake, ["pane", "read", "w1:p1", "--source", "foo"]);
    expect(badSource.exitCode).toBe(1);
    expect(badSource.stderr).toBe('Error: Custom { kind: Other, error: "invalid read source: foo" }\n');
  });
});

describe("fake herdr: agent state engine", () => {
  it("numbers state changes with one global, strictly increasing state_change_seq", async () => {
    const a = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/seq-a", name: "seq-a" })).pane_id;
    const b = (await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp/seq-b", name: "seq-b" })).pane_id;
    const seen: Array<[string, number]> = [];
    for (const [pane, status] of [
      [a, "working"],
      [b, "working"],
      [a, "blocked"],
      [b, "done"],
      [a, "working"],
      [a, "done"],
    ] as const) {
      await fake.script({ op: "setState", paneId: pane, status });
      const info = await agent(pane);
      expect(info.agent_status).toBe(status);
      seen.push([pane, info.state_change_seq]);
    }
    const numbers = seen.map(([, seq]) => seq);
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
    expect(new Set(numbers).size).toBe(numbers.length);
    // Per agent the cursor is increasing but not contiguous: the other agent's changes take numbers too.
    const ofA = seen.filter(([pane]) => pane === a).map(([, seq]) => seq);
    expect(ofA.some((seq, index) => index > 0 && seq - (ofA[index - 1] as number) > 1)).toBe(true);
  });

  it("reports a finished background turn as done until it is seen, without moving the sequence", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/seen", name: "seen" })).pane_id;
    const settled = await ok(["agent", "prompt", "seen", "work", "--wait", "--timeout", "10000"]);
    expect(settled.agent.agent_status).toBe("done");
    await ok(["agent", "list"]);
    expect((await agent(pane)).agent_status).toBe("done");
    const focused = await ok(["agent", "focus", pane]);
    expect(focused.agent).toMatchObject({ agent_status: "idle", state_change_seq: settled.agent.state_change_seq });
  });

  it("types the prompt at once and submits it with Enter 300 ms later", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/enter", name: "enter" })).pane_id;
    await fake.script({ op: "onPrompt", paneId: pane, turns: ["fast"] });
    await ok(["agent", "prompt", pane, "hello there"]);
    await waitUntil(async () => (await fake.prompts(pane))[0]?.submittedAt !== undefined);
    const [prompt] = await fake.prompts(pane);
    expect(prompt?.text).toBe("hello there");
    expect((prompt?.submittedAt ?? 0) - (prompt?.at ?? 0)).toBeGreaterThanOrEqual(290);
  });

  it("leaves a prompt unsubmitted when Enter never arrives, and the waiting prompt stalls", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/noenter", name: "noenter" })).pane_id;
    await fake.script({ op: "delayEnter", paneId: pane, ms: null });
    const stalled = await fails(["agent", "prompt", pane, "typed only", "--wait", "--timeout", "10000"], "agent_prompt_stalled");
    expect(stalled.error.message).toMatch(
      /no observed state change within 1500 ms; status is idle and state_change_seq remained \d+/,
    );
    expect(await fake.prompts(pane)).toEqual([expect.objectContaining({ text: "typed only" })]);
    expect((await fake.prompts(pane))[0]?.submittedAt).toBeUndefined();
  });

  it("fails a fast turn's waiting prompt: agent_prompt_stalled past the gate, timeout within it", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp/fast", name: "fast" })).pane_id;
    await fake.script({ op: "onPrompt", paneId: pane, turns: ["fast", "fast"] });
    await fails(["agent", "prompt", "fast", "quick", "--wait", "--timeout", "10000"], "agent_prompt_stalled");
    const timedOut = await fails(["agent", "prompt", "fast", "quick", "--wait", "--timeout", String(GATE_MS)], "timeout");
    expect(timedOut.error.message).toBe("timed out waiting for agent status");
  });

  it("answers agent_pane_busy for a pane hosting an agent and for scripted busy attempts", async () => {
    const shell = (await fake.script({ op: "createShell", cwd: "/tmp/busy" })).pane_id;
    await fake.script({ op: "busyPane", paneId: shell, attempts: 2 });
    const start = ["agent", "start", "busy-one", "--kind", "claude", "--pane", shell];
    const busy = await fails(start, "agent_pane_busy");
    expect(busy.error.message).toBe(`agent target pane ${shell} is not an available shell`);
    await fails(start, "agent_pane_busy");
    await ok(start);
    await fails(["agent", "start", "busy-two", "--kind", "claude", "--pane", shell], "agent_pane_busy");
    await fails(["agent", "start", "busy-one", "--kind", "claude", "--pane", "w999:p1"], "agent_pane_not_found");
  });

  it("ends waits with agent_not_running when the agent exits mid-task", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/exit", name: "exiting" })).pane_id;
    await fake.script({ op: "onPrompt", paneId: pane, turns: ["exit"] });
    const prompted = await fails(["agent", "prompt", "exiting", "go", "--wait", "--timeout", "10000"], "agent_not_running");
    expect(prompted.error.message).toBe("agent is no longer running in the target pane");
    await fails(["agent", "get", pane], "agent_not_found");
    expect((await ok(["pane", "get", pane])).pane.agent_status).toBe("unknown");

    const other = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/exit2", name: "exiting-two" })).pane_id;
    await fake.script({ op: "setState", paneId: other, status: "working" });
    const waiting = runHerdrCli(fake, ["agent", "wait", other, "--timeout", "10000"]);
    await waitUntil(async () =>
      (await fake.requests()).some((r: Json) => r.method === "agent.wait" && r.params.target === other),
    );
    await fake.script({ op: "exitAgent", paneId: other });
    const ended = await waiting;
    expect(ended.exitCode).toBe(1);
    expect(envelope(ended.stderr, "error_response").error.code).toBe("agent_not_running");
  });

  it("wakes a blocking agent wait in another process, and times out a wait that never matches", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/wait", name: "waiter" })).pane_id;
    const waiting = runHerdrCli(fake, ["agent", "wait", pane, "--until", "blocked", "--timeout", "10000"]);
    await waitUntil(async () => (await fake.requests()).some((r: Json) => r.method === "agent.wait" && r.params.target === pane));
    await fake.script({ op: "setState", paneId: pane, status: "blocked" });
    const woke = await waiting;
    expect(woke.exitCode).toBe(0);
    expect(envelope(woke.stdout, "success_response").result.agent.agent_status).toBe("blocked");
    const timedOut = await fails(["agent", "wait", pane, "--until", "working", "--timeout", "200"], "timeout");
    expect(timedOut.error.message).toBe("timed out waiting for agent status");
  });

  it("keeps polling an agent that exits during start until the deadline, and answers timeout like Herdr", async () => {
    const shell = (await fake.script({ op: "createShell", cwd: "/tmp/start" })).pane_id;
    await fake.script({ op: "onStart", paneId: shell, outcome: "exit" });
    const began = Date.now();
    const timedOut = await fails(["agent", "start", "dies", "--kind", "codex", "--pane", shell, "--timeout", "3001"], "timeout");
    expect(timedOut.error.message).toBe("timed out waiting for agent startup");
    expect(Date.now() - began).toBeGreaterThanOrEqual(3001);
    const polls = (await fake.requests()).filter((r: Json) => r.method === "agent.get" && r.params.target === "dies");
    expect(polls.length).toBeGreaterThan(3);
    await fails(["agent", "start", "dies", "--kind", "codex", "--pane", shell, "--timeout", "3000"], "invalid_agent_timeout");
  });

  it("answers agent_start_failed when the started agent lingers neither launch-pending nor interactive", async () => {
    const shell = (await fake.script({ op: "createShell", cwd: "/tmp/start-stale" })).pane_id;
    await fake.script({ op: "onStart", paneId: shell, outcome: "exit_stale" });
    const failed = await fails(["agent", "start", "lingers", "--kind", "codex", "--pane", shell], "agent_start_failed");
    expect(failed.error.message).toBe("agent process exited before becoming interactive");
  });

  it("answers waits with the current status only: a turn no probe saw working never satisfies --until working", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/flash", name: "flash" })).pane_id;
    await fake.script({ op: "onPrompt", paneId: pane, turns: ["flash", "flash"] });
    const before = (await agent(pane)).state_change_seq;
    const working = await fails(
      ["agent", "prompt", pane, "quick", "--wait", "--until", "working", "--timeout", "2500"],
      "timeout",
    );
    expect(working.error.message).toBe("timed out waiting for agent status");
    const after = await agent(pane);
    // The turn happened (two state changes), but Herdr only ever answers what it probes now.
    expect(after).toMatchObject({ agent_status: "done" });
    expect(after.state_change_seq).toBeGreaterThan(before + 1);
    const settled = await ok(["agent", "prompt", pane, "again", "--wait", "--timeout", "10000"]);
    expect(settled.agent).toMatchObject({ agent_status: "done" });
    expect(settled.agent.state_change_seq).toBeGreaterThan(after.state_change_seq);
  });

  it("lets agent wait take a status seen while waiting, on the record's current cursor", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/transient", name: "transient" })).pane_id;
    await fake.script({ op: "onPrompt", paneId: pane, turns: ["flash"] });
    const waiting = runHerdrCli(fake, ["agent", "wait", pane, "--until", "working", "--timeout", "10000"]);
    await waitUntil(async () => (await fake.requests()).some((r: Json) => r.method === "agent.wait" && r.params.target === pane));
    await ok(["agent", "prompt", pane, "go"]);
    const woke = await waiting;
    expect(woke.exitCode).toBe(0);
    const answered = envelope(woke.stdout, "success_response").result.agent;
    expect(answered.agent_status).toBe("working");
    expect(answered.state_change_seq).toBe((await agent(pane)).state_change_seq);
  });
});

describe("fake herdr: schema, after the state engine (a restart below clears the log)", () => {
  it("sent only schema-valid requests over the whole suite (start polling and waits included)", async () => {
    const requests = await fake.requests();
    expect(requests.some((r: Json) => r.method === "agent.start")).toBe(true);
    for (const request of requests) expect([request, herdrSchemaProblems("request", request)]).toEqual([request, []]);
  });
});

describe("fake herdr: server availability", () => {
  it("answers server_not_running when the socket is absent or refuses connections", async () => {
    const other = await startFakeHerdr();
    await other.stop();
    await fails(["agent", "list"], "server_not_running", other);
    await fake.killServer();
    const down = await fails(["agent", "list"], "server_not_running");
    expect(down.error.message).toBe(`no herdr server is running at ${fake.socketPath}; run \`herdr\` to start or attach it`);
    await fake.restartServer();
    expect((await ok(["agent", "list"])).agents).toEqual([]);
  });

  it("simulates a live handoff: waits in flight are cut, the socket vanishes a while, a new server answers for the panes", async () => {
    const pane = (await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/handoff", name: "handed" })).pane_id;
    await fake.script({ op: "setState", paneId: pane, status: "working" });
    const seq = (await agent(pane)).state_change_seq;
    const waiting = runHerdrCli(fake, ["agent", "wait", pane, "--timeout", "20000"]);
    await waitUntil(async () => (await fake.requests()).some((r: Json) => r.method === "agent.wait" && r.params.target === pane));
    const before = await agent(pane);
    const back = fake.handoff(3000, { absentMs: 0, unknownMs: 0 });
    const cut = await waiting;
    // Herdr's client gets no answer line: Rust's io error escapes main, exit 1, no envelope.
    expect(cut.exitCode).toBe(1);
    expect(cut.stdout).toBe("");
    expect(cut.stderr).toMatch(/^Error: /);
    await fails(["agent", "get", pane], "server_not_running");
    await back;
    // The new server's sequence starts at 0: the agent's real status returning is its first change.
    expect(await agent(pane)).toMatchObject({ agent_status: "working", state_change_seq: 1 });
    expect((await agent(pane)).terminal_id).not.toBe(before.terminal_id);
    expect(seq).toBeGreaterThan(1);
  });

  it("answers protocol_mismatch when the server speaks another protocol", async () => {
    const old = await startFakeHerdr({ timing: { serverProtocol: 19 } });
    try {
      const mismatch = await fails(["agent", "list"], "protocol_mismatch", old);
      expect(mismatch.error.message).toMatch(/^client protocol 20 is newer than server protocol 19/);
    } finally {
      await old.stop();
    }
  });

  it("refuses to talk to a socket that is not the double's", async () => {
    const dir = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "foreign-"));
    const socketPath = join(dir, "herdr.sock");
    const foreign = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => foreign.listen(socketPath, resolve));
    try {
      const run = await runHerdrCli({ env: { ...fake.env, HERDR_SOCKET_PATH: socketPath } }, ["agent", "list"]);
      expect(run.exitCode).toBe(70);
      expect(run.stderr).toMatch(/refusing/);
    } finally {
      foreign.close();
    }
  });
});
