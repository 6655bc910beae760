// agent-computer-admin through the real binary on the embedded store: doctor's report (text and --json, exit 4 when a
// check is an error, bounded when the store does not answer, never echoing a password), and a backup restored into
// an empty state directory that the agents' own tokens still open (export), with prune's preview on it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { runBin } from "../helpers/bin.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";

const CHECKS = [
  "settings",
  "store",
  "clock",
  "worker",
  "console-token",
  "disk",
  "herdr",
  "tmux",
  "bwrap",
  "uv",
  "claude-code",
  "codex",
  "path",
];

describe("agent-computer-admin", () => {
  let mesh: MeshAgents;
  let dir: string;
  let messageId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ac-admin-"));
    mesh = await openMeshAgents("sqlite");
    await mesh.join("alice");
    await mesh.join("bob");
    messageId = (
      await sendMessage(mesh.deps(), {
        from: "bob",
        token: mesh.token("bob"),
        recipients: { kind: "to", agentIds: ["alice"] },
        body: "kept across the restore",
      })
    ).id;
    writeFileSync(join(dir, "alice.token"), mesh.token("alice") as string, { mode: 0o600 });
  });
  afterAll(async () => {
    await mesh?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("doctor: one line per check, then the summary; exit 0 when nothing is an error", async () => {
    const result = await runBin("agent-computer-admin", ["doctor"], { env: mesh.target.env });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    const reported = lines.filter((l) => /^(ok|warn|error) /.test(l)).map((l) => l.split(/\s+/)[1]);
    expect(reported).toEqual(CHECKS);
    expect(lines.at(-1)).toMatch(/^doctor: \d+ ok, \d+ warn, 0 error$/);
    expect(result.stdout).toMatch(/^ok {4}store {10}sqlite .*: reachable, all \d+ migrations applied$/m);
    // Every warning is followed by its fix.
    for (const [i, line] of lines.entries()) if (line.startsWith("warn")) expect(lines[i + 1]).toMatch(/^\s+fix: /);
  });

  test("doctor's settings line says where each setting comes from: the config file, the environment (password masked) or the default", async () => {
    const config = join(dir, "xdg-config");
    mkdirSync(join(config, "agent-computer"), { recursive: true });
    writeFileSync(join(config, "agent-computer", "config.toml"), 'agent_id = "alice"\n', { mode: 0o600 });
    const result = await runBin("agent-computer-admin", ["doctor", "--json"], {
      env: {
        ...mesh.target.env,
        XDG_CONFIG_HOME: config,
        AGENT_COMPUTER_AGENT_ID: "",
        AGENT_COMPUTER_DATABASE_URL: "postgres://ac:s3cret-pw@127.0.0.1:1/nothing",
      },
    });
    const settings = result
      .json<{ checks: { name: string; status: string; detail: string }[] }>()
      .checks.find((c) => c.name === "settings");
    expect(settings?.status).toBe("ok");
    expect(settings?.detail).toContain("agent_id=alice (config)");
    expect(settings?.detail).toMatch(/database_url=postgres:\/\/ac:\*\*\*@127\.0\.0\.1:1\/nothing \(env\)/);
    expect(settings?.detail).toMatch(/state_dir=\S+ \((env|default)\)/);
    expect(`${result.stdout}${result.stderr}`).not.toContain("s3cret-pw");
  });

  test("doctor --json: a store that does not answer is an error (exit 4) within the checks' bound, its password never shown", async () => {
    const started = Date.now();
    const result = await runBin("agent-computer-admin", ["doctor", "--json"], {
      env: { ...mesh.target.env, AGENT_COMPUTER_DATABASE_URL: "postgres://ac:s3cret-pw@127.0.0.1:1/nothing" },
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.exitCode).toBe(4);
    const report = result.json<{ checks: { name: string; status: string; fix?: string }[]; error: number }>();
    expect(report.checks.map((c) => c.name)).toEqual(CHECKS);
    const store = report.checks.find((c) => c.name === "store");
    expect(store?.status).toBe("error");
    expect(store?.fix).toBeTruthy();
    expect(report.error).toBeGreaterThanOrEqual(1);
    expect(`${result.stdout}${result.stderr}`).not.toContain("s3cret-pw");
  });

  test("backup, restore into an empty state directory, export with the agent's own token, prune's preview", async () => {
    const backup = join(dir, "store.sqlite");
    const saved = await runBin("agent-computer-admin", ["backup", "--to", backup, "--json"], { env: mesh.target.env });
    expect(saved.exitCode).toBe(0);
    expect(saved.json()).toMatchObject({ dialect: "sqlite", file: backup, method: "vacuum_into" });

    const restoredEnv = { AGENT_COMPUTER_HOME: join(dir, "restored") };
    const restored = await runBin("agent-computer-admin", ["restore", "--from", backup], { env: restoredEnv });
    expect(restored.exitCode).toBe(0);
    expect(restored.stdout).toMatch(
      /^restored .* into sqlite .*restored\/agent-computer\.sqlite; it opens, with \d+ migrations applied\n$/,
    );
    const again = await runBin("agent-computer-admin", ["restore", "--from", backup, "--json"], { env: restoredEnv });
    expect(again.exitCode).toBe(4);
    expect(JSON.parse(again.stderr).error.code).toBe("CONFLICT");

    const file = join(dir, "alice.jsonl");
    writeFileSync(join(dir, "bob.token"), mesh.token("bob") as string, { mode: 0o600 });
    const refused = await runBin(
      "agent-computer-admin",
      ["export", "--agent-id", "alice", "--token-file", join(dir, "bob.token"), "--to", file],
      { env: restoredEnv },
    );
    expect(refused.exitCode).toBe(3);
    expect(existsSync(file)).toBe(false);
    const exported = await runBin(
      "agent-computer-admin",
      ["export", "--agent-id", "alice", "--token-file", join(dir, "alice.token"), "--to", file],
      { env: restoredEnv },
    );
    expect(exported.stderr).toBe("");
    expect(exported.stdout).toMatch(/^exported 1 message\(s\) of alice \(\d+ bytes\) to /);
    const lines = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({ id: messageId, direction: "received", from: "bob", body: "kept across the restore" }),
    ]);

    const preview = await runBin("agent-computer-admin", ["prune", "--older-than", "1"], { env: restoredEnv });
    expect(preview.exitCode).toBe(0);
    expect(preview.stdout).toMatch(/^PREVIEW \(nothing deleted\): would prune \d+ message\(s\)/);
    expect(preview.stdout).toContain("agent-computer-admin prune --older-than 1 --confirm");
  });
});
