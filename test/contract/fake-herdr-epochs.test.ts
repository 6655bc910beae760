// The Herdr double across a new server, black-box through its `herdr` executable: a live handoff
// (App::new_from_handoff: new terminal ids, pane ids kept, state_change_seq from 0, agents absent and then
// `unknown` before their real status returns) and a cold restart (panes restored under their ids, agents dead),
// driven both from the test handle and from outside through `herdr fake handoff|restart`.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { runHerdrCli } from "../fixtures/fake-herdr/run-cli.ts";

// biome-ignore lint/suspicious/noExplicitAny: envelopes are Herdr's JSON
type Json = any;

let fake: FakeHerdr;
beforeEach(async () => {
  fake = await startFakeHerdr({ timing: { turnStartMs: 20, turnMs: 100 } });
});
afterEach(async () => {
  await fake?.stop();
});

const herdr = (args: string[], extraEnv: Record<string, string> = {}) => runHerdrCli({ env: { ...fake.env, ...extraEnv } }, args);
const getAgent = async (target: string): Promise<{ exitCode: number; agent?: Json; code?: string }> => {
  const run = await herdr(["agent", "get", target]);
  if (run.exitCode === 0) return { exitCode: 0, agent: JSON.parse(run.stdout).result.agent };
  return { exitCode: run.exitCode ?? -1, code: JSON.parse(run.stderr).error.code };
};
const listed = async (): Promise<string[]> =>
  (JSON.parse((await herdr(["agent", "list"])).stdout).result.agents as Json[]).map((a) => a.pane_id);
const until = async <T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> => {
  for (const started = Date.now(); Date.now() - started < ms; await new Promise((r) => setTimeout(r, 20))) {
    const value = await probe();
    if (value !== undefined) return value;
  }
  throw new Error("condition not reached");
};

describe("fake herdr: live handoff", () => {
  it("keeps pane ids, gives every pane a new terminal id, restarts the sequence; agents absent, then unknown at 0, then real", async () => {
    const a = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/epoch-a", name: "alpha" });
    const b = await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp/epoch-b", name: "beta" });
    const shell = await fake.script({ op: "createShell", cwd: "/tmp/epoch-c" });
    await fake.script({ op: "setState", paneId: a.pane_id, status: "working" });
    const seqBefore = (await getAgent(a.pane_id)).agent.state_change_seq;
    expect(seqBefore).toBeGreaterThan(2);
    // Long enough phases that a loaded machine still sees each one.
    await fake.handoff(100, { absentMs: 4000, unknownMs: 3000 });
    const started = Date.now();
    // Absent: neither by pane nor by name, not listed, and the pane shows no agent.
    expect(await getAgent(a.pane_id)).toMatchObject({ exitCode: 1, code: "agent_not_found" });
    expect(await getAgent("beta")).toMatchObject({ exitCode: 1, code: "agent_not_found" });
    expect(await listed()).toEqual([]);
    const pane = JSON.parse((await herdr(["pane", "get", a.pane_id])).stdout).result.pane;
    expect(pane.agent).toBeUndefined();
    expect(pane.terminal_id).not.toBe(a.terminal_id);
    expect(Date.now() - started).toBeLessThan(4000);
    // Then unknown with seq 0, same pane, name, kind and cwd.
    const unknown = await until(async () => {
      const seen = await getAgent(a.pane_id);
      return seen.exitCode === 0 ? seen.agent : undefined;
    });
    expect(unknown).toMatchObject({
      pane_id: a.pane_id,
      name: "alpha",
      agent: "claude",
      agent_status: "unknown",
      state_change_seq: 0,
    });
    expect(unknown.terminal_id).not.toBe(a.terminal_id);
    expect(new Set(await listed())).toEqual(new Set([a.pane_id, b.pane_id]));
    // Prompts are refused while the agent is not re-detected.
    const refused = await herdr(["agent", "prompt", "alpha", "hello"]);
    expect(JSON.parse(refused.stderr).error.code).toBe("agent_not_ready");
    // Then the real status returns, taking numbers of the NEW sequence.
    const real = await until(async () => {
      const seen = (await getAgent(a.pane_id)).agent;
      return seen?.agent_status === "working" ? seen : undefined;
    });
    expect(real.state_change_seq).toBeGreaterThanOrEqual(1);
    expect(real.state_change_seq).toBeLessThan(seqBefore);
    expect(real.terminal_id).toBe(unknown.terminal_id);
    const shellAfter = JSON.parse((await herdr(["pane", "get", shell.pane_id])).stdout).result.pane;
    expect(shellAfter.terminal_id).not.toBe(shell.terminal_id);
  });

  it("a turn that ends while the agent is unobserved returns as its settled status at one new number", async () => {
    const a = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/epoch-turn", name: "turner" });
    await fake.script({
      op: "onPrompt",
      paneId: a.pane_id,
      turns: [
        [
          { afterMs: 10, state: "working" },
          { afterMs: 900, state: "idle", output: "finished" },
        ],
      ],
    });
    expect((await herdr(["agent", "prompt", "turner", "go"])).exitCode).toBe(0);
    await until(async () => ((await getAgent(a.pane_id)).agent?.agent_status === "working" ? true : undefined));
    await fake.handoff(50, { absentMs: 100, unknownMs: 1500 });
    const back = await until(async () => {
      const seen = (await getAgent(a.pane_id)).agent;
      return seen && seen.agent_status !== "unknown" ? seen : undefined;
    });
    expect(back).toMatchObject({ agent_status: "done", state_change_seq: 1 });
  });
});

describe("fake herdr: cold restart", () => {
  it("restores the panes under their ids as shells with new terminal ids; the agents are dead", async () => {
    const a = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/cold", name: "cold" });
    await fake.restartServer(100);
    expect(await getAgent(a.pane_id)).toMatchObject({ exitCode: 1, code: "agent_not_found" });
    expect(await getAgent("cold")).toMatchObject({ exitCode: 1, code: "agent_not_found" });
    const pane = JSON.parse((await herdr(["pane", "get", a.pane_id])).stdout).result.pane;
    expect(pane).toMatchObject({ pane_id: a.pane_id, agent_status: "unknown" });
    expect(pane.agent).toBeUndefined();
    expect(pane.terminal_id).not.toBe(a.terminal_id);
    await new Promise((r) => setTimeout(r, 300));
    expect(await listed()).toEqual([]);
    expect((await fake.state()).stateChangeSeq).toBe(0);
  });
});

describe("fake herdr: the control subcommand", () => {
  it("is an unknown command (exit 2) unless FAKE_HERDR_CONTROL=1", async () => {
    const refused = await herdr(["fake", "handoff"]);
    expect({ exit: refused.exitCode, stdout: refused.stdout }).toEqual({ exit: 2, stdout: "" });
    expect(refused.stderr).toMatch(/unknown command/);
    const bad = await herdr(["fake", "handoff", "--gap-ms", "soon"], { FAKE_HERDR_CONTROL: "1" });
    expect(bad.exitCode).toBe(2);
  });

  it("hands off and restarts the running server from outside the test process", async () => {
    const a = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/ctl", name: "ctl" });
    const handoff = await herdr(["fake", "handoff", "--gap-ms", "100", "--absent-ms", "0", "--unknown-ms", "0"], {
      FAKE_HERDR_CONTROL: "1",
    });
    expect(handoff.exitCode, handoff.stderr).toBe(0);
    expect(JSON.parse(handoff.stdout)).toMatchObject({ fake: "handoff", gap_ms: 100 });
    const after = await until(async () => {
      const seen = (await getAgent(a.pane_id)).agent;
      return seen?.agent_status === "done" || seen?.agent_status === "idle" ? seen : undefined;
    });
    expect(after.terminal_id).not.toBe(a.terminal_id);
    expect(after.state_change_seq).toBe(1);
    const restart = await herdr(["fake", "restart", "--gap-ms", "50"], { FAKE_HERDR_CONTROL: "1" });
    expect(restart.exitCode, restart.stderr).toBe(0);
    expect(await getAgent(a.pane_id)).toMatchObject({ exitCode: 1, code: "agent_not_found" });
  });
});
