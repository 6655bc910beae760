// The Herdr adapter against the Herdr double (and, for failure shapes the double cannot produce, tiny stub
// executables): typed records out, every failure a HerdrError of a closed kind, no raw stderr ever attached.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHerdr, type Herdr, HerdrError, type HerdrErrorKind } from "../../app/agent_computer/src/adapters/herdr/client.ts";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";

let fake: FakeHerdr;
let herdr: Herdr;

const failure = async (promise: Promise<unknown>): Promise<HerdrError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HerdrError);
  return error as HerdrError;
};

const expectKind = async (promise: Promise<unknown>, kind: HerdrErrorKind, herdrCode?: string): Promise<HerdrError> => {
  const error = await failure(promise);
  expect({ kind: error.kind, herdrCode: error.herdrCode }).toEqual({ kind, herdrCode });
  return error;
};

const createAgent = async (name: string, kind: "claude" | "codex" = "claude"): Promise<string> =>
  (await fake.script({ op: "createAgent", kind, cwd: `/tmp/work/${name}`, name })).pane_id;

/** A stand-in `herdr` for outcomes the double never produces (garbage output, hangs, leaky stderr). */
const stubHerdr = (body: string): Herdr => {
  const dir = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "stub-herdr-"));
  writeFileSync(join(dir, "herdr"), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, "herdr"), 0o755);
  return createHerdr({ env: { PATH: `${dir}:/usr/bin:/bin`, HOME: process.env.HOME }, commandTimeoutMs: 1_000 });
};

beforeAll(async () => {
  fake = await startFakeHerdr({ timing: { activityGateMs: 1_000, turnStartMs: 30, turnMs: 150, startupMs: 100 } });
  herdr = createHerdr({ env: { ...fake.env, HOME: process.env.HOME } });
});
afterAll(async () => {
  await fake?.stop();
});

describe("herdr adapter against the double", () => {
  it("lists and gets agents as camelCase records with the global cursor", async () => {
    const pane = await createAgent("lister", "codex");
    const agent = await herdr.getAgent(pane);
    expect(agent).toMatchObject({ paneId: pane, name: "lister", kind: "codex", status: "idle", cwd: "/tmp/work/lister" });
    expect(agent.stateChangeSeq).toBeGreaterThan(0);
    expect(await herdr.getAgent("lister")).toEqual(agent);
    expect((await herdr.listAgents()).map((listed) => listed.paneId)).toContain(pane);
  });

  it("submits a prompt without waiting and lets Herdr press Enter afterwards", async () => {
    const pane = await createAgent("quick");
    const agent = await herdr.promptAgent(pane, "[auto-wake #2540] 1 new Agent Mesh message(s)");
    expect(agent.paneId).toBe(pane);
    const [prompt] = await fake.prompts(pane);
    expect(prompt?.text).toBe("[auto-wake #2540] 1 new Agent Mesh message(s)");
  });

  it("waits for a prompt's turn to settle, and for it to start working", async () => {
    const pane = await createAgent("turns");
    const before = (await herdr.getAgent(pane)).stateChangeSeq;
    const working = await herdr.promptAgent(pane, "start", { until: ["working"], timeoutMs: 10_000 });
    expect(working.status).toBe("working");
    expect(working.stateChangeSeq).toBeGreaterThan(before);
    const settled = await herdr.waitAgent(pane, { timeoutMs: 10_000 });
    expect(settled.status).toBe("done");
    expect(settled.stateChangeSeq).toBeGreaterThan(working.stateChangeSeq);
    const again = await herdr.promptAgent(pane, "next", { timeoutMs: 10_000 });
    expect(again).toMatchObject({ status: "done" });
    expect(again.stateChangeSeq).toBeGreaterThan(settled.stateChangeSeq);
  });

  it("classifies a fast turn as prompt_stalled and a wait that never matches as timeout", async () => {
    const pane = await createAgent("stall");
    await fake.script({ op: "onPrompt", paneId: pane, turns: ["fast"] });
    const stalled = await expectKind(
      herdr.promptAgent(pane, "quick", { timeoutMs: 10_000 }),
      "prompt_stalled",
      "agent_prompt_stalled",
    );
    expect(stalled.message).toMatch(/no observed state change within 1000 ms/);
    await expectKind(herdr.waitAgent(pane, { until: ["working"], timeoutMs: 200 }), "timeout", "timeout");
  });

  it("classifies an agent that exits mid-task as not_running", async () => {
    const pane = await createAgent("leaver");
    await fake.script({ op: "onPrompt", paneId: pane, turns: ["exit"] });
    await expectKind(herdr.promptAgent(pane, "go", { timeoutMs: 10_000 }), "not_running", "agent_not_running");
    const gone = await expectKind(herdr.getAgent(pane), "not_found", "agent_not_found");
    expect(gone.message).toBe(`agent target ${pane} not found`);
  });

  it("reads pane and agent text exactly", async () => {
    const pane = await createAgent("reader");
    await fake.script({ op: "setOutput", paneId: pane, text: "first\nsecond\nthird\n" });
    expect(await herdr.readPane(pane, { lines: 2 })).toBe("third\n");
    expect(await herdr.readAgent("reader", { source: "visible" })).toBe("first\nsecond\nthird\n");
  });

  it("starts a reviewer in a new tab, surfacing agent_pane_busy, and closes only that pane", async () => {
    const home = await createAgent("controller");
    const { workspaceId } = await herdr.getAgent(home);
    const { tab, rootPane } = await herdr.createTab({ cwd: "/tmp/work/ticket", label: "review", workspaceId });
    expect({ workspace: tab.workspaceId, status: rootPane.status, cwd: rootPane.cwd }).toEqual({
      workspace: workspaceId,
      status: "unknown",
      cwd: "/tmp/work/ticket",
    });
    await fake.script({ op: "busyPane", paneId: rootPane.paneId, attempts: 1 });
    const start = { name: "reviewer-1", kind: "claude", paneId: rootPane.paneId, args: ["--model", "opus"] } as const;
    await expectKind(herdr.startAgent(start), "agent_pane_busy", "agent_pane_busy");
    const started = await herdr.startAgent(start);
    expect(started.argv).toEqual(["claude", "--model", "opus"]);
    expect(started.agent).toMatchObject({ name: "reviewer-1", status: "idle", interactiveReady: true, launchPending: false });
    await expectKind(herdr.startAgent({ ...start, name: "reviewer-2" }), "agent_pane_busy", "agent_pane_busy");
    await herdr.closePane(rootPane.paneId);
    await expectKind(herdr.getPane(rootPane.paneId), "not_found", "pane_not_found");
    expect((await herdr.getPane(home)).kind).toBe("claude");
  });

  it("refuses arguments herdr would misread as options, without running herdr", async () => {
    const pane = await createAgent("careful");
    const before = (await fake.requests()).length;
    await expectKind(herdr.promptAgent(pane, "--session=other"), "invalid_argument");
    await expectKind(herdr.promptAgent(pane, "--session"), "invalid_argument");
    await expectKind(herdr.getAgent("-x"), "invalid_argument");
    // @ts-expect-error an unknown kind is exactly what is being refused
    await expectKind(herdr.startAgent({ name: "a", kind: "vim", paneId: pane }), "invalid_argument");
    expect((await fake.requests()).length).toBe(before);
  });

  it("delivers prompt text beginning with '-' verbatim, as Herdr takes it", async () => {
    const pane = await createAgent("dashes");
    for (const text of ["--help", "-v", "- a list item", "--wait", "--sessions are over"]) await herdr.promptAgent(pane, text);
    expect((await fake.prompts(pane)).map((prompt) => prompt.text)).toEqual([
      "--help",
      "-v",
      "- a list item",
      "--wait",
      "--sessions are over",
    ]);
  });

  it("reports an unreachable server as server_unavailable and another protocol as version_mismatch", async () => {
    const old = await startFakeHerdr({ timing: { serverProtocol: 19 } });
    try {
      await expectKind(
        createHerdr({ env: { ...old.env, HOME: process.env.HOME } }).listAgents(),
        "version_mismatch",
        "protocol_mismatch",
      );
    } finally {
      await old.stop();
    }
    await expectKind(
      createHerdr({ env: { ...old.env, HOME: process.env.HOME } }).listAgents(),
      "server_unavailable",
      "server_not_running",
    );
  });
});

describe("herdr adapter process handling", () => {
  it("reports a missing executable as not_installed", async () => {
    const missing = createHerdr({ env: { PATH: "/nonexistent", HOME: process.env.HOME } });
    await expectKind(missing.listAgents(), "not_installed");
  });

  it("passes herdr only PATH, HOME, XDG_CONFIG_HOME, HERDR_* and the agent clients' config directories", async () => {
    const dump = join(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "env-")), "env.txt");
    const dir = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "stub-herdr-"));
    writeFileSync(
      join(dir, "herdr"),
      `#!/bin/sh\nenv > "$HERDR_DUMP"\necho '{"id":"cli:agent:list","result":{"agents":[],"type":"agent_list"}}'\n`,
    );
    chmodSync(join(dir, "herdr"), 0o755);
    const env = {
      PATH: `${dir}:/usr/bin:/bin`,
      HOME: "/home/x",
      HERDR_DUMP: dump,
      RELAY_AGENT_TOKEN: "s3cret",
      XDG_CONFIG_HOME: "/cfg",
      CLAUDE_CONFIG_DIR: "/cfg/claude",
      CODEX_HOME: "/cfg/codex",
      PI_CODING_AGENT_DIR: "/cfg/pi",
      COPILOT_HOME: "/cfg/copilot",
    };
    expect(await createHerdr({ env }).listAgents()).toEqual([]);
    const names = readFileSync(dump, "utf8")
      .split("\n")
      .map((line) => line.split("=")[0]);
    expect(names).toEqual(
      expect.arrayContaining([
        "PATH",
        "HOME",
        "HERDR_DUMP",
        "XDG_CONFIG_HOME",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "PI_CODING_AGENT_DIR",
        "COPILOT_HOME",
      ]),
    );
    expect(names).not.toContain("RELAY_AGENT_TOKEN");
  });

  it.each([
    ["exit 2 (usage)", "echo 'unknown option: token=s3cret' >&2; exit 2", "usage"],
    ["exit 1 without an envelope (a cut connection)", "echo 'Error: token=s3cret' >&2; exit 1", "interrupted"],
    ["stdout that is not JSON", "echo 'token=s3cret'", "protocol"],
    ["a result of another type", `echo '{"id":"x","result":{"type":"ok"}}'`, "protocol"],
    ["a record missing fields", `echo '{"id":"x","result":{"type":"agent_list","agents":[{"pane_id":"w1:p1"}]}}'`, "protocol"],
    ["an unknown error code", `echo '{"error":{"code":"brand_new","message":"m"},"id":"x"}' >&2; exit 1`, "unknown"],
    ["a hang past the budget", "exec sleep 5", "timeout"],
  ] as const)("classifies %s and never attaches stderr", async (_label, body, kind) => {
    const error = await expectKind(stubHerdr(body).listAgents(), kind, kind === "unknown" ? "brand_new" : undefined);
    expect(JSON.stringify(error.toJSON())).not.toContain("s3cret");
    expect(error.message).not.toContain("s3cret");
    expect(error.command).toBe("herdr agent list");
  });
});
