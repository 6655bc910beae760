// What the source form of the binaries must prove, whatever form the rest of the suite runs: that every launcher
// runs the TypeScript entry with the project's Bun when AGENT_COMPUTER_FORM=source (what a checkout without dist/,
// or with a stale one, runs). The commands themselves are the same modules in both forms, so the black-box suites
// run once, compiled; here each binary answers --help from source, each family does one write and one read from
// source, and the worker starts from source, seen running as Bun on main.ts. Every process a launcher starts here
// preloads a marker (BUN_OPTIONS, which Bun honours in both forms) that logs which executable ran which entry.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent } from "../helpers/agents.ts";
import { binPath, repoRoot, runBin } from "../helpers/bin.ts";
import { type HerdrWorld, startHerdrWorld } from "../helpers/herdr-world.ts";
import { binaryNames } from "../helpers/registry.ts";
import { pollUntil } from "../helpers/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "ac-source-form-"));
const marker = join(dir, "marker.cjs");
const forms = join(dir, "forms.log");
writeFileSync(
  marker,
  'require("node:fs").appendFileSync(process.env.AC_FORMS_LOG, process.execPath + "\\t" + Bun.main + "\\n");\n',
);
const SOURCE = { AGENT_COMPUTER_FORM: "source", BUN_OPTIONS: `--preload ${marker}`, AC_FORMS_LOG: forms };
const BUN = join(repoRoot, "node_modules/bun/bin/bun.exe");
const MAIN = join(repoRoot, "app/agent_computer/src/cli/main.ts");

// Whatever ran in a test ran as the project's Bun on the TypeScript entry, never as dist/agent-computer.
afterEach(() => {
  const ran = readFileSync(forms, "utf8").trim().split("\n");
  rmSync(forms);
  expect(ran.length).toBeGreaterThan(0);
  expect(ran.filter((line) => line !== `${BUN}\t${MAIN}`)).toEqual([]);
});
const env = { ...SOURCE, HOME: dir, AGENT_COMPUTER_HOME: join(dir, "state") };
const source = (name: string, args: string[], extra: Record<string, string> = {}) =>
  runBin(name, args, { env: { ...env, ...extra } });
const ok = async (name: string, args: string[], input?: string) => {
  const r = await runBin(name, args, { env, ...(input === undefined ? {} : { input }) });
  expect(r.exitCode, `${name} ${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
};

test("every launcher answers --help from the TypeScript form", async () => {
  const failed: string[] = [];
  // Two at a time: a source start costs a Bun transpile of the command's modules.
  for (let i = 0; i < binaryNames.length; i += 2) {
    await Promise.all(
      binaryNames.slice(i, i + 2).map(async (name) => {
        const r = await source(name, ["--help"]);
        if (r.exitCode !== 0 || !r.stdout.includes(name) || r.stderr !== "") failed.push(`${name}: ${r.stderr}`);
      }),
    );
  }
  expect(failed).toEqual([]);
}, 120_000);

describe("one write and one read per family, from source", () => {
  test("mesh: check in, send, read the inbox", async () => {
    const alice = await checkInAgent(env, dir, "src-alice");
    const bob = await checkInAgent(env, dir, "src-bob");
    await ok("agent-send-cli", ["--agent-id", alice.id, "--token-file", alice.tokenFile, "--to", bob.id, "--body", "hi"]);
    const inbox = await ok("agent-inbox-cli", ["--agent-id", bob.id, "--token-file", bob.tokenFile, "--json"]);
    expect(inbox.json<{ messages: { body: string }[] }>().messages.map((m) => m.body)).toEqual(["hi"]);
  });

  test("identity: register, show", async () => {
    const registered = await ok("register-agent-cli", [
      "--agent-id",
      "src-carol",
      "--role",
      "r",
      "--capabilities",
      "c",
      "--json",
    ]);
    expect(registered.json()).toMatchObject({ action: "registered", agent: { name: "src-carol" } });
    const shown = await ok("agent-identity-cli", ["show", "--agent-id", "src-carol", "--json"]);
    expect(shown.stdout).toContain("src-carol");
  });

  test("automation: set a worker variable, list the variables", async () => {
    const dave = await checkInAgent(env, dir, "src-dave");
    const as = ["--agent-id", dave.id, "--token-file", dave.tokenFile];
    await ok("worker-env-cli", ["set", ...as, "--file", "-"], "SOURCE_FORM=1\n");
    const listed = await ok("worker-env-cli", ["list", ...as, "--json"]);
    expect(listed.stdout).toContain("SOURCE_FORM");
  });

  describe("herdr: take the controller lease, inspect the topology", () => {
    let world: HerdrWorld;
    beforeAll(async () => {
      world = await startHerdrWorld();
    });
    afterAll(async () => {
      await world?.stop();
    });

    test("herdr-lease-cli controller acquire and herdr-inspect-cli topology", async () => {
      const acquired = await world.run(
        "herdr-lease-cli",
        ["controller", "acquire", "--authority-ref", "acme/api#7", "--authority-sha256", "a".repeat(64), "--json"],
        SOURCE,
      );
      expect(acquired.exitCode, acquired.stderr).toBe(0);
      const topology = await runBin("herdr-inspect-cli", ["topology", "--json"], { env: { ...world.env, ...SOURCE } });
      expect(topology.exitCode, topology.stderr).toBe(0);
      expect(topology.stdout).toContain(world.coordinator.pane_id);
    });
  });
});

/** How many descriptors the process holds on the file: one per SQLite connection that opened it. */
const descriptorsOn = (pid: number, file: string): number =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;

test("the worker starts from source: the project's Bun runs main.ts, and its checkpoint thread's program loads", async () => {
  const home = join(dir, "worker");
  mkdirSync(home);
  const worker = execa(binPath("agent-computer-worker"), ["--port", "0", "--json"], {
    env: { ...SOURCE, HOME: home, AGENT_COMPUTER_HOME: join(home, "state") },
    extendEnv: false,
    reject: false,
    detached: true,
    timeout: 60_000,
  });
  let stderr = "";
  worker.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    await pollUntil(() => (stderr.includes('"msg":"worker started"') ? true : undefined), {
      timeoutMs: 30_000,
      stepMs: 50,
      what: "the worker's start line",
    });
    // The launcher execs, so the pid execa started is the program that runs.
    const argv = readFileSync(`/proc/${worker.pid}/cmdline`, "utf8").split("\0");
    expect(argv[0]).toBe(BUN);
    expect(argv).toContain(MAIN);
    // The main connection and the checkpoint thread's: a Worker whose source file failed to load opens none.
    const storeFile = join(home, "state", "agent-computer.sqlite");
    const both = () => (descriptorsOn(worker.pid as number, storeFile) === 2 ? true : undefined);
    expect(await pollUntil(both, { timeoutMs: 20_000, stepMs: 50, what: "the checkpoint thread's connection" })).toBe(true);
    process.kill(worker.pid as number, "SIGTERM");
    // As its --help says: stopped by SIGTERM, it prints its summary and ends by that signal.
    expect((await worker).signal, stderr).toBe("SIGTERM");
  } finally {
    try {
      process.kill(-(worker.pid as number), "SIGKILL");
    } catch {
      // the group already ended
    }
  }
}, 90_000);
