// The configuration file as a user meets it through a real binary: its state_dir is where the store goes when
// AGENT_COMPUTER_HOME is unset, the variable wins when set, and a bad file is CONFIG_INVALID (exit 2) naming the
// file and the key, while --help still works.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";

const root = mkdtempSync(join(tmpdir(), "ac-config-e2e-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const xdg = join(root, "xdg");
const file = join(xdg, "agent-computer", "config.toml");
mkdirSync(join(xdg, "agent-computer"), { recursive: true });

const write = (text: string): void => {
  writeFileSync(file, text);
  chmodSync(file, 0o600);
};
const env = (extra: Record<string, string | undefined> = {}) => ({
  XDG_CONFIG_HOME: xdg,
  AGENT_COMPUTER_HOME: undefined,
  AGENT_COMPUTER_DATABASE_URL: undefined,
  ...extra,
});

describe("the configuration file, through a binary", () => {
  test("state_dir places the store; AGENT_COMPUTER_HOME wins over it", async () => {
    const fromFile = join(root, "from-file");
    write(`state_dir = "${fromFile}"\n`);
    const r = await runBin("agents-list-cli", ["--json"], { env: env() });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(existsSync(join(fromFile, "agent-computer.sqlite"))).toBe(true);
    const fromEnv = join(root, "from-env");
    const e = await runBin("agents-list-cli", ["--json"], { env: env({ AGENT_COMPUTER_HOME: fromEnv }) });
    expect(e.exitCode).toBe(0);
    expect(existsSync(join(fromEnv, "agent-computer.sqlite"))).toBe(true);
  });

  test("a bad key is CONFIG_INVALID naming the file and the key; help does not read the file", async () => {
    write('state_dir = "relative"\n');
    const r = await runBin("agents-list-cli", ["--json"], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: "CONFIG_INVALID",
      message: `${file}: state_dir: must be an absolute path (or start with ~/) (got "relative")`,
    });
    expect((await runBin("agents-list-cli", ["--help"], { env: env() })).exitCode).toBe(0);
  });
});
