// Arming auto-wake through the real binaries and the Herdr double: every "unsupported" case with its reason, the
// preview, the detached light watcher (its own process group, one per host and store, gone by itself when nothing
// is armed), the wake round trip through agent-send-cli and agent-inbox-cli, and the worker taking over.

import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { WAKE_PROMPT_PATTERN } from "../../app/agent_computer/src/domain/wake/prompt.ts";
import { FAKE_HERDR_BIN_DIR, type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { checkInAgent } from "../helpers/agents.ts";
import { binaryForm, binPath, runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";
import { isRunning, stopWatchers, waitFor, watcherPids } from "../helpers/wake.ts";

const processGroupOf = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[2]);
const wakeDirs = (home: string): string[] =>
  existsSync(join(home, "wake")) ? readdirSync(join(home, "wake")).map((d) => join(home, "wake", d)) : [];

describe.each(storeNames)("arming auto-wake with agent-checkin-cli [%s]", (storeName) => {
  let target: StoreTarget;
  let fake: FakeHerdr;
  let home: string;
  const extraPids: number[] = [];
  const base = () => ({ ...target.env, AGENT_COMPUTER_WAKE_POLL_MS: "10", AGENT_COMPUTER_WAKE_COALESCE_MS: "20" });
  const inPane = (paneId: string, extra: Record<string, string> = {}) => ({
    ...base(),
    ...fake.env,
    HERDR_ENV: "1",
    HERDR_PANE_ID: paneId,
    ...extra,
  });
  const checkin = (agentId: string, env: Record<string, string | undefined>, extra: string[] = []) =>
    runBin("agent-checkin-cli", ["--agent-id", agentId, "--json", ...extra], { env });
  const wakeOf = (r: { json<T>(): T }) =>
    r.json<{ herdr_wake: { state: string; reason: string | null; watcher?: { pid: number; role: string } } }>().herdr_wake;

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    home = target.env.AGENT_COMPUTER_HOME as string;
    fake = await startFakeHerdr({ timing: { submitDelayMs: 20, turnStartMs: 20, turnMs: 100 } });
  });
  afterEach(async () => {
    await stopWatchers(home, extraPids.splice(0));
    // Each test arms its own agents: earlier armings would keep a later light watcher busy.
    for (const dir of wakeDirs(home)) rmSync(join(dir, "agents"), { recursive: true, force: true });
  });
  afterAll(async () => {
    await stopWatchers(home);
    await fake?.stop();
    await target?.dispose();
  });

  test("where auto-wake cannot work the check-in still succeeds and says why; nothing is armed", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "named-one" });
    const shell = await fake.script({ op: "createShell", cwd: "/tmp" });
    const cases: [Record<string, string | undefined>, string, RegExp][] = [
      [{ ...inPane(agent.pane_id), HERDR_ENV: undefined }, agent.pane_id, /HERDR_ENV is not 1/],
      [inPane(agent.pane_id, { PATH: "/usr/bin:/bin" }), agent.pane_id, /herdr is not on PATH/],
      [inPane("w9:p9", { HERDR_PANE_ID: "" }), "w9:p9", /knows no agent in pane w9:p9/],
      [inPane(shell.pane_id), shell.pane_id, new RegExp(`knows no agent in pane ${shell.pane_id}`)],
      [inPane("w99:p1"), agent.pane_id, /is not this pane \(HERDR_PANE_ID is w99:p1\)/],
      [inPane(agent.pane_id, { HERDR_SOCKET_PATH: join(home, "no-such.sock") }), agent.pane_id, /no Herdr server answers/],
      [inPane("named-one", { HERDR_PANE_ID: "" }), "named-one", new RegExp(`must be a pane id such as ${agent.pane_id}`)],
    ];
    for (const [env, pane, reason] of cases) {
      const r = await checkin("unsupported-1", env, ["--herdr-pane", pane, "--confirm"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(wakeOf(r)).toMatchObject({ state: "unsupported" });
      expect(wakeOf(r).reason).toMatch(reason);
      expect(wakeOf(r).reason).toMatch(/poll agent-inbox-cli yourself$/);
    }
    expect(watcherPids(home)).toEqual([]);
    for (const dir of wakeDirs(home)) expect(existsSync(join(dir, "agents", "unsupported-1.json"))).toBe(false);
  });

  test("the preview checks with Herdr but arms nothing and starts nothing", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp" });
    const r = await checkin("previewer", inPane(agent.pane_id), ["--herdr-pane", agent.pane_id]);
    expect(r.exitCode).toBe(0);
    expect(wakeOf(r)).toMatchObject({ state: "would_arm" });
    expect(watcherPids(home)).toEqual([]);
    for (const dir of wakeDirs(home)) expect(existsSync(join(dir, "agents", "previewer.json"))).toBe(false);
  });

  test("arming starts one detached light watcher; mail wakes the pane; the token works once", async () => {
    const sender = await checkInAgent(base(), home, `sender-${storeName}`);
    const panes = await Promise.all([1, 2].map(() => fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp" })));
    // Two agents arm at once: both are served by the same single watcher.
    const [a, b] = await Promise.all(
      panes.map((p, i) => checkin(`armed-${i}`, inPane(p.pane_id), ["--herdr-pane", p.pane_id, "--confirm"])),
    );
    for (const r of [a, b])
      expect(wakeOf(r as never)).toMatchObject({ state: "armed", reason: null, watcher: { role: "light" } });
    const pid = wakeOf(a as never).watcher?.pid as number;
    expect(wakeOf(b as never).watcher?.pid).toBe(pid);
    expect(watcherPids(home)).toEqual([pid]);
    expect(processGroupOf(pid)).toBe(pid);
    expect(processGroupOf(pid)).not.toBe(processGroupOf(process.pid));
    const [dir] = wakeDirs(home);
    expect(statSync(dir as string).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir as string, "agents", "armed-0.json")).mode & 0o777).toBe(0o600);

    const pane = panes[0]?.pane_id as string;
    const sent = await runBin(
      "agent-send-cli",
      ["--from", sender.id, "--token-file", sender.tokenFile, "--to", "armed-0", "--body", "rm -rf / secret-9c1"],
      {
        env: base(),
      },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const [prompt] = await waitFor(async () => {
      const prompts = await fake.prompts(pane);
      return prompts.length > 0 ? prompts : undefined;
    });
    expect(prompt?.text).toMatch(WAKE_PROMPT_PATTERN);
    expect(prompt?.text).toContain("1 new Agent Mesh message(s); run: agent-inbox-cli --agent-id armed-0 --wake-token ");
    expect(JSON.stringify(await fake.requests())).not.toContain("secret-9c1");
    const token = prompt?.text.slice(-16) as string;
    const read = await runBin("agent-inbox-cli", ["--agent-id", "armed-0", "--wake-token", token, "--json"], { env: base() });
    expect(read.exitCode, read.stderr).toBe(0);
    expect(read.json<{ messages: { body: string }[] }>().messages.map((m) => m.body)).toEqual(["rm -rf / secret-9c1"]);
    const again = await runBin("agent-inbox-cli", ["--agent-id", "armed-0", "--wake-token", token, "--json"], { env: base() });
    expect(again.exitCode).toBe(4);
    expect(JSON.parse(again.stderr).error.code).toBe("WAKE_TOKEN_INVALID");

    // A renewal without --herdr-pane keeps the arming and the same watcher.
    const renewed = await checkin("armed-0", inPane(pane), ["--confirm"]);
    expect(wakeOf(renewed)).toMatchObject({ state: "armed", watcher: { pid } });

    if (storeName === "postgres") {
      const tables = await target.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      let dump = "";
      for (const { table_name } of tables) dump += JSON.stringify(await target.sql(`SELECT * FROM "${String(table_name)}"`));
      for (const p of panes) expect(dump).not.toContain(p.pane_id);
    }
  });

  test("the light watcher exits by itself, lock removed, once no armed agent remains", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp" });
    const env = inPane(agent.pane_id, { AGENT_COMPUTER_WAKE_IDLE_EXIT_MS: "300" });
    const r = await checkin("leaver", env, ["--herdr-pane", agent.pane_id, "--confirm"]);
    const pid = wakeOf(r).watcher?.pid as number;
    expect(isRunning(pid)).toBe(true);
    await fake.script({ op: "exitAgent", paneId: agent.pane_id });
    await waitFor(() => (!isRunning(pid) ? true : undefined), 10_000);
    expect(watcherPids(home)).toEqual([]);
    const log = readFileSync(join(wakeDirs(home)[0] as string, "watcher.log"), "utf8");
    expect(log).toContain("auto-wake disarmed");
    expect(log).toContain('"outcome":"idle"');
  });

  test("arming records the absolute herdr; a worker with no herdr on its PATH still delivers the wake with it", async () => {
    const sender = await checkInAgent(base(), home, `sender3-${storeName}`);
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp" });
    const r = await checkin("no-path", inPane(agent.pane_id), ["--herdr-pane", agent.pane_id, "--confirm"]);
    expect(wakeOf(r)).toMatchObject({ state: "armed" });
    const light = wakeOf(r).watcher?.pid as number;
    const registration = JSON.parse(readFileSync(join(wakeDirs(home)[0] as string, "agents", "no-path.json"), "utf8"));
    expect(registration.herdr_bin).toBe(join(FAKE_HERDR_BIN_DIR, "herdr"));
    // The worker's own PATH has no herdr: it must use the one recorded at arming, not look it up.
    const worker = execa(binPath("agent-computer-worker"), ["--port", "0"], {
      env: { ...inPane(agent.pane_id), PATH: "/usr/bin:/bin", FORCE_COLOR: "0", AGENT_COMPUTER_FORM: binaryForm },
      extendEnv: false,
      reject: false,
    });
    extraPids.push(worker.pid as number);
    try {
      await waitFor(() => (!isRunning(light) && watcherPids(home)[0] === worker.pid ? true : undefined), 15_000);
      const sent = await runBin(
        "agent-send-cli",
        ["--from", sender.id, "--token-file", sender.tokenFile, "--to", "no-path", "--body", "hi"],
        { env: base() },
      );
      expect(sent.exitCode, sent.stderr).toBe(0);
      await waitFor(async () => ((await fake.prompts(agent.pane_id)).length > 0 ? true : undefined));
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
  });

  test("agent-computer-worker takes over from a light watcher and wakes agents itself", async () => {
    const sender = await checkInAgent(base(), home, `sender2-${storeName}`);
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp" });
    const r = await checkin("handed-over", inPane(agent.pane_id), ["--herdr-pane", agent.pane_id, "--confirm"]);
    const light = wakeOf(r).watcher?.pid as number;
    const worker = execa(binPath("agent-computer-worker"), ["--port", "0"], {
      env: { ...inPane(agent.pane_id), FORCE_COLOR: "0", AGENT_COMPUTER_FORM: binaryForm },
      reject: false,
    });
    extraPids.push(worker.pid as number);
    try {
      await waitFor(() => (!isRunning(light) && watcherPids(home)[0] === worker.pid ? true : undefined), 15_000);
      await runBin(
        "agent-send-cli",
        ["--from", sender.id, "--token-file", sender.tokenFile, "--to", "handed-over", "--body", "hi"],
        {
          env: base(),
        },
      );
      await waitFor(async () => ((await fake.prompts(agent.pane_id)).length > 0 ? true : undefined));
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    expect(watcherPids(home)).toEqual([]);
  });
});
