// The optional configuration file: precedence (flag > environment > file > default), validation that names the file
// and the key, a private file only, and a file that is never looked at when every variable it could supply is set.
// In process, on real files in a temp dir.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { effectiveSettings, loadEffectiveSettings, withConfigFile } from "../../app/agent_computer/src/cli/kernel/settings.ts";
import { isAppError } from "../../app/agent_computer/src/errors.ts";
import { parseConfigText, readConfigFile } from "../../app/agent_computer/src/local/config-file.ts";

const root = mkdtempSync(join(tmpdir(), "ac-config-file-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const home = () => "/home/u";
let dirs = 0;

/** A fresh XDG_CONFIG_HOME holding agent-computer/config.toml with `text` and `mode`. */
const configHome = (text: string, mode = 0o600): { env: Record<string, string | undefined>; file: string } => {
  const xdg = join(root, `xdg${dirs++}`);
  mkdirSync(join(xdg, "agent-computer"), { recursive: true });
  const file = join(xdg, "agent-computer", "config.toml");
  writeFileSync(file, text);
  chmodSync(file, mode);
  return { env: { HOME: "/home/u", XDG_CONFIG_HOME: xdg, XDG_STATE_HOME: undefined }, file };
};

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { code: error.code, exit: error.exitCode, message: error.message, hint: error.hint };
  }
  throw new Error("expected a failure");
};

describe("config file: precedence", () => {
  const file = { state_dir: "/from/file", database_url: "postgres://u:pw@db/ac", agent_id: "file-agent" };
  test.each([
    ["default", {}, undefined, {}, ["/home/u/.local/state/agent-computer", undefined, undefined]],
    ["config beats default", {}, file, {}, ["/from/file", "postgres://u:pw@db/ac", "file-agent"]],
    [
      "env beats config",
      {
        AGENT_COMPUTER_HOME: "/from/env",
        AGENT_COMPUTER_DATABASE_URL: "postgres://env/ac",
        AGENT_COMPUTER_AGENT_ID: "env-agent",
      },
      file,
      {},
      ["/from/env", "postgres://env/ac", "env-agent"],
    ],
    ["an empty variable is unset", { AGENT_COMPUTER_HOME: "" }, file, {}, ["/from/file", "postgres://u:pw@db/ac", "file-agent"]],
    [
      "flag beats env",
      { AGENT_COMPUTER_AGENT_ID: "env-agent" },
      file,
      { agent_id: "flag-agent" },
      ["/from/file", "postgres://u:pw@db/ac", "flag-agent"],
    ],
  ] as const)("%s", (_label, env, fromFile, flags, values) => {
    const settings = effectiveSettings({ HOME: "/home/u", ...env }, fromFile, flags);
    expect(settings.map((s) => s.value)).toEqual(values);
  });

  test("each setting says its source, and a database password is never shown", () => {
    const settings = effectiveSettings({ HOME: "/h", AGENT_COMPUTER_HOME: "/env" }, file, { agent_id: "f" });
    expect(settings.map((s) => [s.key, s.source, s.shown])).toEqual([
      ["state_dir", "env", "/env"],
      ["database_url", "config", "postgres://u:***@db/ac"],
      ["agent_id", "flag", "f"],
    ]);
  });
});

describe("config file: validation names the file and the key", () => {
  const f = "/c/config.toml";
  test("a good file, ~/ meaning the home directory", () => {
    expect(parseConfigText(f, 'state_dir = "~/ac"\nagent_id = "me"\n', home)).toEqual({
      state_dir: "/home/u/ac",
      agent_id: "me",
    });
  });
  test.each([
    ["an unknown key", 'colour = "x"', "/c/config.toml: unknown key colour"],
    [
      "a relative state dir",
      'state_dir = "rel"',
      '/c/config.toml: state_dir: must be an absolute path (or start with ~/) (got "rel")',
    ],
    ["a number for a string", "agent_id = 5", "/c/config.toml: agent_id: must be a string"],
    ["a bad agent id", 'agent_id = "-x"', "/c/config.toml: agent_id: must be 1-64 characters"],
    ["not TOML", "state_dir = \n", "/c/config.toml: not valid TOML: "],
  ])("%s: CONFIG_INVALID, exit 2", (_label, text, message) => {
    const e = failure(() => parseConfigText(f, text, home));
    expect(e.code).toBe("CONFIG_INVALID");
    expect(e.exit).toBe(2);
    expect(e.message.startsWith(message)).toBe(true);
  });
  test("a bad database URL is refused without echoing it", () => {
    const e = failure(() => parseConfigText(f, 'database_url = "mysql://u:s3cret@h/db"', home));
    expect(e.message).toBe("/c/config.toml: database_url: must start with postgres:// or postgresql://");
    expect(JSON.stringify(e)).not.toContain("s3cret");
  });
});

describe("config file: on disk", () => {
  test("missing: no settings; private: read", async () => {
    expect(await readConfigFile(join(root, "none.toml"), home)).toBeUndefined();
    const { file } = configHome('agent_id = "a"\n');
    expect(await readConfigFile(file, home)).toEqual({ agent_id: "a" });
  });

  test.each([0o644, 0o640, 0o620, 0o602])("mode %o is refused with the fix", async (mode) => {
    const { file } = configHome('database_url = "postgres://u:pw@db/ac"\n', mode);
    const error = await readConfigFile(file, home).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe("CONFIG_INVALID");
    expect(String((error as Error).message)).toContain(`${file}: mode ${mode.toString(8)} lets other users read or change it`);
    expect((error as { hint?: string }).hint).toBe(`chmod 600 ${file} (and own it)`);
  });

  test("a command's environment gets the file's values only where a variable is unset", async () => {
    const { env } = configHome('state_dir = "/s"\ndatabase_url = "postgres://u:pw@db/ac"\n');
    const merged = await withConfigFile({ ...env, AGENT_COMPUTER_HOME: "/mine" });
    expect(merged.AGENT_COMPUTER_HOME).toBe("/mine");
    expect(merged.AGENT_COMPUTER_DATABASE_URL).toBe("postgres://u:pw@db/ac");
    expect(merged.AGENT_COMPUTER_AGENT_ID).toBeUndefined();
  });

  test("with every variable set, the file is not even read (a broken one is not an error)", async () => {
    const { env } = configHome("not toml at all [", 0o666);
    const all = {
      ...env,
      AGENT_COMPUTER_HOME: "/a",
      AGENT_COMPUTER_DATABASE_URL: "postgres://x/y",
      AGENT_COMPUTER_AGENT_ID: "me",
    };
    expect(await withConfigFile(all)).toBe(all);
    await expect(withConfigFile({ ...all, AGENT_COMPUTER_AGENT_ID: undefined })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
    });
  });

  test("loadEffectiveSettings names the file it read, for the operator's doctor", async () => {
    const { env, file } = configHome('agent_id = "cfg"\n');
    const { file: read, present, settings } = await loadEffectiveSettings(env);
    expect(read).toBe(file);
    expect(present).toBe(true);
    expect((await loadEffectiveSettings({ HOME: "/h", XDG_CONFIG_HOME: join(root, "none") })).present).toBe(false);
    expect(settings.find((s) => s.key === "agent_id")).toMatchObject({ value: "cfg", source: "config" });
  });
});
