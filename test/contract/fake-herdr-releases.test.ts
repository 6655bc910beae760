// The Herdr double as real Herdr behaves beyond the happy path (docs/herdr-facts.md §10): the release it plays and that
// release's protocol, the error codes Herdr emits (workspace_not_found, confirmation_required, agent_blocked,
// agent_not_ready), reads that scroll an alternate-screen agent, `--session` taken out of argv wherever it stands,
// and integration status following the clients' relocated config directories. Every envelope is schema-checked.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { herdrSchemaProblems } from "../fixtures/fake-herdr/herdr-schema.ts";
import { runHerdrCli } from "../fixtures/fake-herdr/run-cli.ts";

// biome-ignore lint/suspicious/noExplicitAny: envelopes are checked against the JSON schema, not TS types
type Json = any;

const SCROLL_MS = 700;
let fake: FakeHerdr;

const ok = async (args: string[], on: FakeHerdr = fake): Promise<Json> => {
  const run = await runHerdrCli(on, args);
  expect({ exit: run.exitCode, stderr: run.stderr }).toEqual({ exit: 0, stderr: "" });
  const value = JSON.parse(run.stdout);
  expect(herdrSchemaProblems("success_response", value)).toEqual([]);
  return value.result;
};

const fails = async (args: string[], code: string, on: FakeHerdr = fake): Promise<Json> => {
  const run = await runHerdrCli(on, args);
  expect({ exit: run.exitCode, stdout: run.stdout }).toEqual({ exit: 1, stdout: "" });
  const value = JSON.parse(run.stderr);
  expect(herdrSchemaProblems("error_response", value)).toEqual([]);
  expect(value.error.code).toBe(code);
  return value.error;
};

const withFake = async (timing: Parameters<typeof startFakeHerdr>[0], body: (other: FakeHerdr) => Promise<void>) => {
  const other = await startFakeHerdr(timing);
  try {
    await body(other);
  } finally {
    await other.stop();
  }
};

beforeAll(async () => {
  fake = await startFakeHerdr({ timing: { startupMs: 100, scrollReadMs: SCROLL_MS } });
});
afterAll(async () => {
  await fake?.stop();
});

describe("fake herdr: releases", () => {
  it("plays 0.8.2 with protocol 20 by default; 0.8.0 is 19 and 0.9.1 is 22, in --version, status and ping", async () => {
    const status = JSON.parse((await runHerdrCli(fake, ["status", "--json"])).stdout);
    expect(status.client).toMatchObject({ version: "0.8.2", protocol: 20 });
    expect(status.server).toMatchObject({ version: "0.8.2", protocol: 20, compatible: true });
    for (const [version, protocol] of [
      ["0.8.0", 19],
      ["0.9.1", 22],
    ] as const) {
      await withFake({ timing: { herdrVersion: version } }, async (other) => {
        expect((await runHerdrCli(other, ["--version"])).stdout).toBe(`herdr ${version}\n`);
        const doc = JSON.parse((await runHerdrCli(other, ["status", "--json"])).stdout);
        expect(doc.client).toMatchObject({ version, protocol });
        expect(doc.server).toMatchObject({ version, protocol, compatible: true });
        await ok(["agent", "list"], other);
      });
    }
  });

  it("a 0.9.1 herdr on PATH against a 0.8.2 server answers protocol_mismatch naming both protocols", async () => {
    await withFake({ timing: { herdrVersion: "0.9.1", serverVersion: "0.8.2" } }, async (other) => {
      const error = await fails(["agent", "list"], "protocol_mismatch", other);
      expect(error.message).toMatch(/^client protocol 22 is older than server protocol 20|client protocol 22 is newer/);
      const doc = JSON.parse((await runHerdrCli(other, ["status", "--json"])).stdout);
      expect(doc.server).toMatchObject({ version: "0.8.2", protocol: 20, compatible: false });
    });
  });
});

describe("fake herdr: error codes real Herdr emits", () => {
  it("tab list / pane list with an unknown --workspace answer workspace_not_found, exit 1", async () => {
    await fails(["tab", "list", "--workspace", "w9Z"], "workspace_not_found");
    await fails(["pane", "list", "--workspace", "w9Z"], "workspace_not_found");
  });

  it("closing the last pane of a worktree group answers confirmation_required and closes nothing", async () => {
    const shell = await fake.script({ op: "createShell", cwd: "/tmp/group" });
    await fake.script({ op: "worktreeGroup", workspaceId: shell.workspace_id });
    await fails(["pane", "close", shell.pane_id], "confirmation_required");
    await ok(["pane", "get", shell.pane_id]);
  });

  it("0.8.2 refuses a prompt to a blocked agent with agent_blocked before typing; 0.8.0 types it", async () => {
    const blocked = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/blocked", name: "stuck" });
    await fake.script({ op: "setState", paneId: blocked.pane_id, status: "blocked" });
    await fails(["agent", "prompt", "stuck", "go on"], "agent_blocked");
    expect(await fake.prompts(blocked.pane_id)).toEqual([]);
    await withFake({ timing: { herdrVersion: "0.8.0" } }, async (old) => {
      const agent = await old.script({ op: "createAgent", kind: "claude", cwd: "/tmp/blocked", name: "stuck" });
      await old.script({ op: "setState", paneId: agent.pane_id, status: "blocked" });
      await ok(["agent", "prompt", "stuck", "go on"], old);
      expect((await old.prompts(agent.pane_id)).map((p) => p.text)).toEqual(["go on"]);
    });
  });

  it("0.8.2 answers agent_not_ready when a started agent sits on a first-run screen; 0.8.0 calls it started", async () => {
    const shell = await fake.script({ op: "createShell", cwd: "/tmp/first-run" });
    await fake.script({ op: "onStart", paneId: shell.pane_id, outcome: "first_run" });
    await fails(["agent", "start", "newbie", "--kind", "codex", "--pane", shell.pane_id], "agent_not_ready");
    // The agent keeps its name and pane; once a human answers, it is an ordinary idle agent.
    expect((await ok(["agent", "get", "newbie"])).agent).toMatchObject({ agent_status: "blocked" });
    await fake.script({ op: "setState", paneId: shell.pane_id, status: "idle" });
    expect((await ok(["agent", "get", "newbie"])).agent).toMatchObject({ agent_status: "idle", interactive_ready: true });
    await withFake({ timing: { herdrVersion: "0.8.0", startupMs: 100 } }, async (old) => {
      const pane = (await old.script({ op: "createShell", cwd: "/tmp/first-run" })).pane_id;
      await old.script({ op: "onStart", paneId: pane, outcome: "first_run" });
      const started = await ok(["agent", "start", "newbie", "--kind", "codex", "--pane", pane], old);
      expect(started.agent).toMatchObject({ agent_status: "blocked", interactive_ready: true });
    });
  });

  it("failNext accepts only codes Herdr emits, such as server_unavailable and internal_error", async () => {
    await fake.script({ op: "failNext", method: "agent.list", code: "server_unavailable", message: "server is shutting down" });
    await fails(["agent", "list"], "server_unavailable");
    await expect(fake.script({ op: "failNext", method: "agent.list", code: "made_up", message: "x" })).rejects.toThrow(
      /not an error code Herdr/,
    );
  });
});

describe("fake herdr: reads that type", () => {
  it("a recent read of an idle alternate-screen agent scrolls it (mouse-wheel input) and takes time; visible does not", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp/alt", name: "alt", altScreen: true });
    await fake.script({ op: "setOutput", paneId: agent.pane_id, text: "screen" });
    const started = Date.now();
    const visible = await runHerdrCli(fake, ["pane", "read", agent.pane_id, "--source", "visible"]);
    expect(visible.stdout).toBe("screen");
    expect(await fake.inputs(agent.pane_id)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(SCROLL_MS);
    for (const args of [
      ["pane", "read", agent.pane_id],
      ["agent", "read", "alt", "--source", "recent"],
    ]) {
      const before = Date.now();
      expect((await runHerdrCli(fake, args)).stdout).toBe("screen");
      expect(Date.now() - before).toBeGreaterThanOrEqual(SCROLL_MS);
    }
    expect((await fake.inputs(agent.pane_id)).map((input) => [input.kind, input.cause])).toEqual([
      ["mouse_wheel", "pane.read"],
      ["mouse_wheel", "agent.read"],
    ]);
  });
});

describe("fake herdr: argv and environment as Herdr reads them", () => {
  it("takes --session out of argv wherever it stands, also from where a prompt's text belongs", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp/session", name: "argv" });
    // A text `--session=x` (or `--session` and what follows) is not text to Herdr: it is taken as the session.
    for (const args of [
      ["agent", "prompt", "argv", "--session=elsewhere"],
      ["agent", "prompt", "argv", "--session", "--wait"],
    ]) {
      const misread = await runHerdrCli(fake, args);
      expect({ exit: misread.exitCode, stderr: misread.stderr }).toEqual({ exit: 2, stderr: expect.stringMatching(/^usage:/) });
    }
    await fails(["--session", "elsewhere", "agent", "prompt", "argv", "hi"], "server_not_running");
    expect(await fake.prompts(agent.pane_id)).toEqual([]);
    // Anything else beginning with '-' is the text, verbatim.
    await ok(["agent", "prompt", "argv", "-v --wait"]);
    expect((await fake.prompts(agent.pane_id)).map((p) => p.text)).toEqual(["-v --wait"]);
  });

  it("integration status follows CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR and COPILOT_HOME", async () => {
    const relocated = join(fake.dir, "relocated");
    const files = {
      claude: "claude/settings.json",
      codex: "codex/hooks.json",
      pi: "pi/extensions/herdr.ts",
      copilot: "copilot/hooks/herdr.json",
    };
    for (const file of Object.values(files)) {
      mkdirSync(join(relocated, file, ".."), { recursive: true });
      writeFileSync(join(relocated, file), "{}");
    }
    const env = {
      ...fake.env,
      HOME: join(fake.dir, "home"),
      CLAUDE_CONFIG_DIR: join(relocated, "claude"),
      CODEX_HOME: join(relocated, "codex"),
      PI_CODING_AGENT_DIR: join(relocated, "pi"),
      COPILOT_HOME: join(relocated, "copilot"),
    };
    const seen = (await runHerdrCli({ env }, ["integration", "status"])).stdout;
    for (const [label, file] of Object.entries(files)) {
      expect(seen).toContain(`${label}: current (legacy) (${join(relocated, file)})\n`);
    }
    const unset = (await runHerdrCli({ env: { ...fake.env, HOME: join(fake.dir, "home") } }, ["integration", "status"])).stdout;
    expect(unset).toContain(`claude: not installed (${join(fake.dir, "home", ".claude", "settings.json")})\n`);
  });
});
