// A first registration writes its token to --token-file when that file is missing or empty (register-agent-cli and
// agent-checkin-cli --confirm), instead of printing it; and agent-checkin-cli --herdr-pane "$HERDR_PANE_ID" outside
// Herdr arms nothing but succeeds with the documented unsupported wake state.
import { existsSync, lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { binPath, runBin } from "../helpers/bin.ts";

const root = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "token-file-"));
const env: Record<string, string> = {
  AGENT_COMPUTER_HOME: join(root, "state"),
  AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "off",
  AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "off",
};
const mode = (path: string) => lstatSync(path).mode & 0o777;
const errorCode = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string } }).error;

describe("--token-file receives the token of a first registration", () => {
  test("register-agent-cli: a missing file is created 0600 with the token, which stdout never shows and which authenticates", async () => {
    const file = join(root, "reg-a.token");
    const r = await runBin(
      "register-agent-cli",
      ["--name", "reg-a", "--role", "builder", "--capabilities", "ts", "--token-file", file, "--json"],
      {
        env,
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mode(file)).toBe(0o600);
    const token = readFileSync(file, "utf8").trim();
    expect(token).toMatch(/^\S{20,}$/);
    expect(r.stdout + r.stderr).not.toContain(token);
    expect(r.json()).toMatchObject({ action: "registered", token_file: file });
    expect(r.json()).not.toHaveProperty("agent_token");
    // The vault is not what authenticates here: the file is passed, and RELAY_AGENT_TOKEN set to garbage is ignored.
    const shown = await runBin("agent-identity-cli", ["show", "--name", "reg-a", "--token-file", file, "--json"], {
      env: { ...env, RELAY_AGENT_TOKEN: "garbage" },
    });
    expect(shown.exitCode, shown.stderr).toBe(0);
    const renewed = await runBin(
      "register-agent-cli",
      ["--name", "reg-a", "--role", "builder", "--capabilities", "ts", "--token-file", file, "--agent-pid", String(process.pid)],
      { env },
    );
    expect(renewed.stderr).not.toContain("INVALID_INPUT");
    expect(readFileSync(file, "utf8").trim()).toBe(token);
  });

  test("agent-checkin-cli --confirm: an empty file (even 0644) is filled and made 0600; text output says where, not what", async () => {
    const file = join(root, "chk-a.token");
    writeFileSync(file, "", { mode: 0o644 });
    const r = await runBin("agent-checkin-cli", ["--agent-id", "chk-a", "--confirm", "--token-file", file], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const token = readFileSync(file, "utf8").trim();
    expect(token).not.toBe("");
    expect(mode(file)).toBe(0o600);
    expect(r.stdout).not.toContain(token);
    expect(r.stdout).toContain(`agent token written to ${file} (0600)`);
    const inbox = await runBin("agent-inbox-cli", ["--agent-id", "chk-a", "--token-file", file], {
      env: { ...env, RELAY_AGENT_TOKEN: "garbage" },
    });
    expect(inbox.exitCode, inbox.stderr).toBe(0);
  });

  test("a symbolic link (even a dangling one) is never written through: INVALID_INPUT, nothing registered", async () => {
    const target = join(root, "elsewhere.token");
    const link = join(root, "link.token");
    symlinkSync(target, link);
    const r = await runBin("agent-checkin-cli", ["--agent-id", "chk-link", "--confirm", "--token-file", link, "--json"], { env });
    expect(r.exitCode).toBe(2);
    expect(errorCode(r.stderr)).toMatchObject({ code: "INVALID_INPUT" });
    expect(errorCode(r.stderr).message).toMatch(/^--token-file: .*symbolic link/);
    expect(existsSync(target)).toBe(false);
    const listed = await runBin("agents-list-cli", ["--include-stale", "--json"], { env });
    expect(listed.stdout).not.toContain("chk-link");
  });

  test("a known name with a missing file stays INVALID_INPUT naming the flag, and leaves no file behind", async () => {
    const file = join(root, "missing-for-known.token");
    const r = await runBin("agent-checkin-cli", ["--agent-id", "chk-a", "--confirm", "--token-file", file, "--json"], { env });
    expect(r.exitCode).toBe(2);
    expect(errorCode(r.stderr).message).toBe(`--token-file: cannot read a token from ${file}`);
    expect(existsSync(file)).toBe(false);
  });
});

test('agent-checkin-cli --herdr-pane "$HERDR_PANE_ID" outside Herdr: exit 0 with herdr_wake unsupported, as pasted in a shell', async () => {
  const { HERDR_ENV: _e, HERDR_PANE_ID: _p, ...outside } = process.env;
  const r = await execa(
    "sh",
    ["-c", `"${binPath("agent-checkin-cli")}" --agent-id rev-2 --role reviewer --herdr-pane "$HERDR_PANE_ID" --confirm --json`],
    { env: { ...outside, ...env }, extendEnv: false, reject: false },
  );
  expect(r.exitCode, String(r.stderr)).toBe(0);
  const wake = (JSON.parse(String(r.stdout)) as { herdr_wake: { state: string; reason: string } }).herdr_wake;
  expect(wake.state).toBe("unsupported");
  expect(wake.reason).toContain("poll agent-inbox-cli yourself");
});
