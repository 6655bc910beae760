// Text from elsewhere never steers the terminal of whoever reads it: hostile values put where other agents, scripts,
// file paths, argv and old store rows feed the output go through the real binaries, and no raw control, bidi or
// zero-width character reaches stdout or stderr, in human output, --json and errors; a newline inside a one-line
// field cannot forge a line of its own.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, workerOnce } from "../helpers/automation.ts";
import { type BinResult, runBin } from "../helpers/bin.ts";
import { type HerdrWorld, startHerdrWorld, turn } from "../helpers/herdr-world.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

/**
 * Every class a terminal acts on: OSC 52 (clipboard), OSC 0 (title), CSI clear screen, C1 CSI, DEL, CR, bidi overrides
 * and isolates and marks, zero-width characters, and a newline followed by a forged line.
 */
const HOSTILE =
  "ok\u001b]52;c;cHduZWQ=\u0007\u001b]0;PWNED\u0007\u001b[2J\u009b31m\u007f\r\u202e\u2066\u200e\u200f\u061c" +
  "\u200b\u200c\u200d\u2060\ufeff\u2028\nFORGED line";

/** The raw characters that must not reach a terminal: the class, C0 except newline and tab. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these characters
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060\u2066-\u2069\ufeff]/u;

const expectInert = (r: BinResult, label: string): void => {
  expect(r.stdout, `${label}: stdout`).not.toMatch(RAW);
  expect(r.stderr, `${label}: stderr`).not.toMatch(RAW);
  for (const line of `${r.stdout}\n${r.stderr}`.split("\n")) expect(line, `${label}: a forged line`).not.toMatch(/^FORGED/);
};

describe.each(storeNames)("hostile text through the binaries [%s]", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  let dir: string;
  let alice: TestAgent;
  let evil: TestAgent;
  const as = (agent: TestAgent) => ["--agent-id", agent.id, "--token-file", agent.tokenFile];

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = automationEnv(target);
    dir = mkdtempSync(join(tmpdir(), "ac-hostile-"));
    alice = await checkInAgent(env, dir, "alice", ["--role", "builder"]);
    evil = await checkInAgent(env, dir, "evil", ["--role", "builder"]);
  });
  afterAll(async () => target?.dispose());

  test("a role and host stored raw (a row from before input was checked) are shown inert in lists and check-ins", async () => {
    await target.sql("UPDATE agents SET role = $1 WHERE name = 'evil'", [HOSTILE]);
    await target.sql("UPDATE sessions SET role = $1, host = $1 WHERE agent_name = 'evil'", [HOSTILE]);
    const list = await runBin("agents-list-cli", [], { env });
    expect(list.exitCode, list.stderr).toBe(0);
    expectInert(list, "agents-list-cli");
    expect(list.stdout).toContain("ok\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;PWNED\\x07\\x1b[2J\\x9b31m\\x7f\\x0d\\u202e");
    expect(list.stdout).toContain("\\u200b\\u200c\\u200d\\u2060\\ufeff\\u2028\\nFORGED line");

    const json = await runBin("agents-list-cli", ["--json"], { env });
    expectInert(json, "agents-list-cli --json");
    const row = json
      .json<{ agents: { agent_id: string; role: string; host: string }[] }>()
      .agents.find((a) => a.agent_id === "evil");
    expect(row).toMatchObject({ role: HOSTILE, host: HOSTILE });

    for (const args of [as(evil), [...as(evil), "--confirm"]]) {
      const checkin = await runBin("agent-checkin-cli", args, { env });
      expect(checkin.exitCode, checkin.stderr).toBe(0);
      expectInert(checkin, `agent-checkin-cli ${args.join(" ")}`);
      expect(checkin.stdout).toContain("role ok\\x1b]52;c;");
    }
  });

  test("a message body and thread are inert in the inbox, the sent view and the thread view", async () => {
    const sent = await runBin("agent-send-cli", [...as(alice), "--to", "evil", "--body-file", "-", "--thread", "t1"], {
      env,
      input: HOSTILE,
    });
    expect(sent.exitCode, sent.stderr).toBe(0);
    for (const [name, args] of [
      ["agent-inbox-cli", as(evil)],
      ["agent-sent-cli", as(alice)],
      ["agent-thread-cli", [...as(evil), "--thread", `${alice.id}:t1`]],
    ] as const) {
      const human = await runBin(name, args, { env });
      expect(human.exitCode, human.stderr).toBe(0);
      expectInert(human, name);
      expect(human.stdout).toContain("ok\\x1b]52;c;cHduZWQ=\\x07");
      const json = await runBin(name, [...args, "--json"], { env });
      expectInert(json, `${name} --json`);
    }
    const inbox = await runBin("agent-inbox-cli", [...as(evil), "--json"], { env });
    expect(inbox.json<{ messages: { body: string }[] }>().messages.at(-1)?.body).toBe(HOSTILE);
  });

  test("a job directory named with escapes, and a run's output tails, are inert in create, list and show", async () => {
    const jobDir = join(mkdtempSync(join(tmpdir(), "ac-hostile-job-")), HOSTILE.replaceAll("\n", " "));
    mkdirSync(jobDir);
    writeFileSync(
      join(jobDir, "main.ts"),
      `process.stdout.write(${JSON.stringify(HOSTILE)}); process.stderr.write(${JSON.stringify(HOSTILE)});\n`,
    );
    const created = await runBin("create-automation-job-cli", [...as(alice), "--dir", jobDir, "--label", "hostile"], { env });
    expect(created.exitCode, created.stderr).toBe(0);
    expectInert(created, "create-automation-job-cli");
    expect(created.stdout).toContain("ok\\x1b]52;c;");
    const jobId = /registered (job_[0-9a-f]{32})/.exec(created.stdout)?.[1] as string;
    await cli(env, alice, "run-automation-job-cli", ["--job-id", jobId]);
    await workerOnce(env);

    for (const [name, args] of [
      ["list-automation-jobs-cli", as(alice)],
      ["show-automation-job-cli", [...as(alice), "--job-id", jobId]],
    ] as const) {
      const human = await runBin(name, args, { env });
      expect(human.exitCode, human.stderr).toBe(0);
      expectInert(human, name);
      expect(human.stdout).toContain("ok\\x1b]52;c;cHduZWQ=\\x07");
      const json = await runBin(name, [...args, "--json"], { env });
      expectInert(json, `${name} --json`);
    }
    const shown = await cli<{ job: { dir: string }; runs: { stdout_tail: string }[] }>(env, alice, "show-automation-job-cli", [
      "--job-id",
      jobId,
    ]);
    expect(shown.job.dir).toBe(jobDir);
    expect(shown.runs[0]?.stdout_tail).toBe(HOSTILE);
  });
});

describe("errors that echo what was typed", () => {
  const env = { AGENT_COMPUTER_HOME: mkdtempSync(join(tmpdir(), "ac-hostile-err-")) };
  const missing = join(tmpdir(), `no-such-dir-${process.pid}`, HOSTILE);
  const cases: [string, string[]][] = [
    ["an unexpected argument", ["agent-inbox-cli", "--agent-id", "a", HOSTILE]],
    // Short, so the raw characters stand within the part of the value the message quotes.
    ["a bad flag value", ["agent-inbox-cli", "--agent-id", "a", "--limit", "\u202e1\u009b2J\u200b"]],
    ["an unknown option", ["agent-inbox-cli", `--x${HOSTILE}`]],
    ["an option given a value it does not take", ["agent-inbox-cli", `--json=${HOSTILE}`]],
    ["two spellings that differ", ["register-agent-cli", "--agent-id", "a", "--name", HOSTILE, "--role", "r", "--caps", "x"]],
    ["an unknown subcommand", ["agent-identity-cli", HOSTILE]],
    ["help for an unknown subcommand", ["agent-identity-cli", "help", HOSTILE]],
    ["a file that cannot be read", ["agent-send-cli", "--from", "a", "--to", "b", "--body-file", missing]],
    ["a token file that cannot be read", ["agent-inbox-cli", "--agent-id", "a", "--token-file", missing]],
  ];

  test.each(cases)("%s is refused with the value shown inert, in text and in --json", async (_label, [name, ...args]) => {
    const human = await runBin(name as string, args, { env });
    expect(human.exitCode, human.stderr).toBe(2);
    expectInert(human, "human");
    expect(human.stderr).toMatch(/^[a-z-]+(?: [a-z-]+)?: INVALID_INPUT: /);
    const json = await runBin(name as string, [...args, "--json"], { env });
    expect(json.exitCode).toBe(2);
    expectInert(json, "--json");
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: "INVALID_INPUT" } });
  });
});

describe("a Herdr agent's answer", () => {
  let world: HerdrWorld;
  let pane = "";

  beforeAll(async () => {
    world = await startHerdrWorld();
    await world.acquire();
    const args = ["reviewer", "start", "--name", "rev-h", "--kind", "claude", "--cwd", world.fake.dir, "--purpose", "review"];
    pane = (await world.json<{ pane_id: string }>("herdr-lease-cli", args)).pane_id;
  });
  afterAll(async () => world?.stop());

  test("is shown inert by ask, and exact in --json", async () => {
    await world.fake.script({ op: "onPrompt", paneId: pane, turns: [turn(HOSTILE, "idle", 50)] });
    const human = await world.run("herdr-agent-control", ["ask", "rev-h", "--", "review it"]);
    expect(human.exitCode, human.stderr).toBe(0);
    expectInert(human, "herdr-agent-control ask");
    expect(human.stdout).toContain("ok\\x1b]52;c;cHduZWQ=\\x07");
    await world.fake.script({ op: "onPrompt", paneId: pane, turns: [turn(HOSTILE, "idle", 50)] });
    const json = await world.run("herdr-agent-control", ["ask", "rev-h", "--json", "--", "review it"]);
    expectInert(json, "herdr-agent-control ask --json");
    expect(json.json<{ results: { output: string }[] }>().results[0]?.output).toContain(HOSTILE);
  });
});
