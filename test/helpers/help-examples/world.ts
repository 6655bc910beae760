// One fresh place to run a command's --help examples as a person would: bash with bin/ first on PATH, its own HOME,
// state dir and working directory, and on request the Herdr double (this shell is "inside" a coordinator's pane) or
// a running agent-computer-worker on the same store.
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { type FakeHerdr, startFakeHerdr } from "../../fixtures/fake-herdr/control.ts";
import type { WireAgentInfo } from "../../fixtures/fake-herdr/protocol.ts";
import { type Daemon, startDaemon } from "../automation.ts";
import { FAST_TIMING } from "../herdr-world.ts";

export interface ShellResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface World {
  /** The working directory examples run in (relative paths such as ./nightly land here). */
  dir: string;
  home: string;
  env: Record<string, string>;
  herdr?: { fake: FakeHerdr; coordinator: WireAgentInfo };
  sh(line: string): Promise<ShellResult>;
  /** Runs a prerequisite; it must exit 0. */
  must(line: string): Promise<string>;
  /** Runs a prerequisite that prints JSON; it must exit 0. */
  json<T = Record<string, unknown>>(line: string): Promise<T>;
  stop(): Promise<void>;
}

export const startWorld = async (options: {
  form: string;
  repoRoot: string;
  herdr: boolean;
  worker: boolean;
}): Promise<World> => {
  const dir = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "examples-"));
  const home = join(dir, "home");
  mkdirSync(home);
  const fake = options.herdr ? await startFakeHerdr({ timing: FAST_TIMING }) : undefined;
  const coordinator = fake ? await fake.script({ op: "createAgent", kind: "claude", cwd: dir, name: "coord" }) : undefined;
  const path = `${join(options.repoRoot, "bin")}:${fake ? fake.env.PATH : (process.env.PATH ?? "/usr/bin:/bin")}`;
  const env: Record<string, string> = {
    PATH: path,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    AGENT_COMPUTER_HOME: join(dir, "state"),
    AGENT_COMPUTER_FORM: options.form,
    AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "off",
    AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "off",
    AGENT_COMPUTER_RATE_SEND_PER_NAME: "off",
    AGENT_COMPUTER_RATE_SEND_PER_HOST: "off",
    AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "off",
    AGENT_COMPUTER_RATE_DELIVER_PER_HOST: "off",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
    ...(fake && coordinator
      ? {
          HERDR_SOCKET_PATH: fake.env.HERDR_SOCKET_PATH,
          HERDR_ENV: "1",
          HERDR_PANE_ID: coordinator.pane_id,
          AGENT_CONTROL_CONTROLLER_ID: "proj.ctl",
          // bash runs every example, so the vitest worker (bash's parent) plays the coordinator agent's process.
          AGENT_CONTROL_CONTROLLER_PID: String(process.pid),
        }
      : {}),
  };
  let daemon: Daemon | undefined;
  const sh = async (line: string): Promise<ShellResult> => {
    const r = await execa("bash", ["-o", "pipefail", "-c", line], {
      cwd: dir,
      env,
      extendEnv: false,
      reject: false,
      timeout: 90_000,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  const world: World = {
    dir,
    home,
    env,
    ...(fake && coordinator ? { herdr: { fake, coordinator } } : {}),
    sh,
    must: async (line) => {
      const r = await sh(line);
      if (r.exitCode !== 0) throw new Error(`prerequisite failed (${r.exitCode}): ${line}\n${r.stderr}`);
      return r.stdout;
    },
    json: async <T>(line: string) => JSON.parse(await world.must(line)) as T,
    stop: async () => {
      daemon?.process.kill("SIGTERM");
      await daemon?.process.catch(() => undefined);
      await fake?.stop();
    },
  };
  if (options.worker) daemon = await startDaemon(env);
  return world;
};
