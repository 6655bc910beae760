// A coordinator inside the Herdr double, as the black-box Herdr tests need it: a fake server with short timing,
// a named controller agent whose pane the binaries run "in", a private state dir, and every stdout/stderr of
// every run kept so the suite can prove no credential ever appeared in output.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import type { FakeHerdrTiming, WireAgentInfo } from "../fixtures/fake-herdr/protocol.ts";
import { type BinResult, runBin } from "./bin.ts";

export const FAST_TIMING: Partial<FakeHerdrTiming> = {
  submitDelayMs: 40,
  activityGateMs: 700,
  pollMs: 25,
  startupMs: 60,
  turnStartMs: 30,
  turnMs: 120,
};

export const SHA_A = "a".repeat(64);

export interface HerdrWorld {
  fake: FakeHerdr;
  home: string;
  workDir: string;
  coordinator: WireAgentInfo;
  env: Record<string, string>;
  /** Runs a binary as the coordinator (extra env overrides), recording its output. */
  run(binary: "herdr-agent-control" | "herdr-lease-cli", args: string[], extraEnv?: Record<string, string>): Promise<BinResult>;
  /** Runs and insists on exit 0; returns the parsed --json document. */
  json<T = Record<string, unknown>>(binary: "herdr-agent-control" | "herdr-lease-cli", args: string[]): Promise<T>;
  acquire(): Promise<void>;
  /** Adds output of a process the test ran itself to what the leak scan reads. */
  record(...texts: string[]): void;
  /** Remembers the raw credentials currently on disk, so the leak scan knows what to look for. */
  rememberSecrets(): void;
  /** Every recorded output, every Herdr request and every state file but the credentials themselves. */
  leakedSecrets(): Promise<string[]>;
  stop(): Promise<void>;
}

export const startHerdrWorld = async (
  options: { timing?: Partial<FakeHerdrTiming>; storeEnv?: Record<string, string>; controllerId?: string } = {},
): Promise<HerdrWorld> => {
  const root = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "herdr-world-"));
  const home = options.storeEnv?.AGENT_COMPUTER_HOME ?? join(root, "state");
  const workDir = join(root, "work");
  const fake = await startFakeHerdr({ timing: { ...FAST_TIMING, ...options.timing } });
  const coordinator = await fake.script({ op: "createAgent", kind: "claude", cwd: root, name: "coord" });
  const env: Record<string, string> = {
    ...fake.env,
    HOME: process.env.HOME ?? root,
    AGENT_COMPUTER_HOME: home,
    HERDR_ENV: "1",
    HERDR_PANE_ID: coordinator.pane_id,
    AGENT_CONTROL_CONTROLLER_ID: options.controllerId ?? "proj.ctl",
    // The vitest worker spawns every binary, so it plays the coordinator agent's process.
    AGENT_CONTROL_CONTROLLER_PID: String(process.pid),
    ...options.storeEnv,
  };
  const outputs: string[] = [];
  const secrets = new Set<string>();
  const credentialsDir = join(home, "herdr", "credentials");

  const world: HerdrWorld = {
    fake,
    home,
    workDir,
    coordinator,
    env,
    run: async (binary, args, extraEnv = {}) => {
      const result = await runBin(binary, args, { env: { ...env, ...extraEnv } });
      outputs.push(result.stdout, result.stderr);
      return result;
    },
    json: async (binary, args) => {
      const result = await world.run(binary, [...args, "--json"]);
      if (result.exitCode !== 0) throw new Error(`${binary} ${args.join(" ")} exited ${result.exitCode}: ${result.stderr}`);
      return result.json();
    },
    acquire: async () => {
      await world.json("herdr-lease-cli", [
        "controller",
        "acquire",
        "--authority-ref",
        "acme/api#7",
        "--authority-sha256",
        SHA_A,
      ]);
      world.rememberSecrets();
    },
    record: (...texts) => {
      outputs.push(...texts);
    },
    rememberSecrets: () => {
      for (const name of safeList(credentialsDir)) {
        const credential = JSON.parse(readFileSync(join(credentialsDir, name), "utf8")) as {
          lease_id: string;
          fence_token: string;
        };
        secrets.add(credential.lease_id);
        secrets.add(credential.fence_token);
      }
    },
    leakedSecrets: async () => {
      world.rememberSecrets();
      const haystacks = [...outputs, JSON.stringify(await fake.requests()), ...stateFiles(join(home, "herdr"), credentialsDir)];
      return [...secrets].filter((secret) => haystacks.some((text) => text.includes(secret)));
    },
    stop: () => fake.stop(),
  };
  return world;
};

const safeList = (dir: string): string[] => {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
};

/** The text of every file under dir except the credential files (which are meant to hold the secrets). */
const stateFiles = (dir: string, skip: string): string[] => {
  const texts: string[] = [];
  const walk = (current: string): void => {
    if (current === skip) return;
    let entries: import("node:fs").Dirent[] = [];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else texts.push(readFileSync(path, "utf8"));
    }
  };
  walk(dir);
  return texts;
};

/** A scripted turn: working after a short delay, then the given output and a final state. */
export const turn = (output: string, end: "idle" | "blocked" = "idle", workMs = 150) => [
  { afterMs: 30, state: "working" as const },
  { afterMs: workMs, output, state: end },
];
