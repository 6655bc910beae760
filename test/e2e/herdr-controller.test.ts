// The controller lease through bin/: exclusive per controller id, bound to pane + agent + process, fenced by
// generation, credentials only in a 0600 file (the store holds a SHA-256), never in output. Runs on every store.

import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { binaryForm, binPath } from "../helpers/bin.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const AUTHORITY = ["--authority-ref", "acme/api#7", "--authority-sha256", SHA_A];
const code = (stderr: string): string => (JSON.parse(stderr) as { error: { code: string } }).error.code;

describe.each(storeNames)("controller lease [%s]", (storeName) => {
  let target: StoreTarget;
  let world: HerdrWorld;
  const credentialFile = () => join(world.home, "herdr", "credentials", "proj.ctl.json");
  const credential = () => JSON.parse(readFileSync(credentialFile(), "utf8")) as { lease_id: string; fence_token: string };
  const renew = (env: Record<string, string> = {}) => world.run("herdr-lease-cli", ["controller", "renew", "--json"], env);

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    world = await startHerdrWorld({ storeEnv: target.env });
  });
  afterAll(async () => {
    await world?.stop();
    await target?.dispose();
  });

  test("acquire binds this pane's agent; the store keeps only the fence's SHA-256 and the file is 0600", async () => {
    const out = await world.json<Record<string, unknown>>("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY]);
    world.rememberSecrets();
    expect(out).toMatchObject({
      controller_id: "proj.ctl",
      generation: 1,
      state: "active",
      agent_name: "coord",
      process_bound: true,
    });
    expect(Object.keys(out)).not.toContain("lease_id");
    expect(statSync(credentialFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(world.home, "herdr", "credentials")).mode & 0o777).toBe(0o700);
    const rows = await target.sql("SELECT * FROM herdr_controller_leases");
    expect(rows[0]?.fence_hash).toBe(createHash("sha256").update(credential().fence_token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(credential().fence_token);
  });

  test("a second acquire of the same controller id is refused while the lease is unexpired, from any pane", async () => {
    const again = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"]);
    expect(again.exitCode).toBe(4);
    expect(code(again.stderr)).toBe("CONTROLLER_HELD");
    const other = await world.fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp", name: "rival" });
    const rival = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"], {
      HERDR_PANE_ID: other.pane_id,
    });
    expect(code(rival.stderr)).toBe("CONTROLLER_HELD");
  });

  test("mutating commands from another pane or outside Herdr are refused before the credential is read", async () => {
    const other = await world.fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "impostor" });
    const fromOther = await renew({ HERDR_PANE_ID: other.pane_id });
    expect(fromOther.exitCode).toBe(3);
    expect(code(fromOther.stderr)).toBe("CONTROLLER_AUTH_FAILED");
    const outside = await renew({ HERDR_ENV: "" });
    expect(outside.exitCode).toBe(4);
    expect(code(outside.stderr)).toBe("CONTROLLER_CONTEXT_MISSING");
    expect((await renew()).exitCode).toBe(0);
  });

  test("a process that does not descend from the bound agent process is refused until resume rebinds it", async () => {
    // Acquire from a shell that stays alive as the bound process, then let it exit.
    await world.json("herdr-lease-cli", ["controller", "release", "--checkpoint-ref", "c1", "--checkpoint-sha256", SHA_A]);
    // `; exit $?` keeps sh from exec'ing the command, so sh itself is the process that gets bound.
    const script = 'AGENT_CONTROL_CONTROLLER_PID=$$ "$0" controller acquire "$@" --json; exit $?';
    const shell = await execa("sh", ["-c", script, binPath("herdr-lease-cli"), ...AUTHORITY], {
      env: { ...world.env, AGENT_CONTROL_CONTROLLER_PID: "", AGENT_COMPUTER_FORM: binaryForm },
      reject: false,
    });
    expect(shell.exitCode).toBe(0);
    world.record(String(shell.stdout), String(shell.stderr));
    world.rememberSecrets();
    const refused = await renew();
    expect(code(refused.stderr)).toBe("CONTROLLER_AUTH_FAILED");
    expect(refused.stderr).toContain("descend");
    const resumed = await world.json<{ generation: number }>("herdr-lease-cli", ["controller", "resume", ...AUTHORITY]);
    world.rememberSecrets();
    expect(resumed.generation).toBe(3);
    expect((await renew()).exitCode).toBe(0);
  });

  test("a superseded credential is fenced; the same agent recovers with resume", async () => {
    const stale = join(world.home, "old-credential.json");
    copyFileSync(credentialFile(), stale);
    await world.json("herdr-lease-cli", ["controller", "resume", ...AUTHORITY]);
    world.rememberSecrets();
    copyFileSync(stale, credentialFile());
    const fenced = await renew();
    expect(fenced.exitCode).toBe(4);
    expect(code(fenced.stderr)).toBe("CONTROLLER_FENCED");
    // Resume rests on identity (same pane, terminal, agent, cwd), not on the lost credential: it mints a new one.
    await world.json("herdr-lease-cli", ["controller", "resume", ...AUTHORITY]);
    world.rememberSecrets();
    expect((await renew()).exitCode).toBe(0);
  });

  test("an expired lease is resumed (acquire would be a steal: see takeover); release removes the credential", async () => {
    const restart = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"]);
    expect(code(restart.stderr)).toBe("CONTROLLER_HELD");
    await target.sql("UPDATE herdr_controller_leases SET expires_at = 1");
    const expired = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"]);
    expect(code(expired.stderr)).toBe("CONTROLLER_HELD");
    expect(code((await renew()).stderr)).toBe("CONTROLLER_EXPIRED");
    await world.json("herdr-lease-cli", ["controller", "resume", ...AUTHORITY]);
    world.rememberSecrets();
    const released = await world.json<{ state: string }>("herdr-lease-cli", [
      "controller",
      "release",
      "--checkpoint-ref",
      "c2",
      "--checkpoint-sha256",
      SHA_A,
    ]);
    expect(released.state).toBe("released");
    expect(() => statSync(credentialFile())).toThrow();
    expect(code((await renew()).stderr)).toBe("CONTROLLER_AUTH_FAILED");
    const next = await world.json<{ generation: number }>("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY]);
    world.rememberSecrets();
    expect(next.generation).toBeGreaterThan(4);
  });

  test("an unnamed (hand-started) agent cannot acquire; the hint says how to name it, and once named it can", async () => {
    const unnamed = await world.fake.script({ op: "createAgent", kind: "codex", cwd: world.home });
    const env = { HERDR_PANE_ID: unnamed.pane_id, AGENT_CONTROL_CONTROLLER_ID: "hand.started" };
    const refused = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"], env);
    expect(refused.exitCode).not.toBe(0);
    const error = (JSON.parse(refused.stderr) as { error: { code: string; hint: string } }).error;
    expect(error.code).toBe("CONTROLLER_AUTH_FAILED");
    expect(error.hint).toContain(`herdr agent rename ${unnamed.pane_id} <name>`);
    expect(error.hint).toContain("herdr agent start <name>");
    const renamed = await execa("herdr", ["agent", "rename", unnamed.pane_id, "hand-coord"], {
      env: { ...world.fake.env, HOME: world.home },
      reject: false,
    });
    expect(renamed.exitCode, renamed.stderr).toBe(0);
    const acquired = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"], env);
    expect(acquired.exitCode, acquired.stderr).toBe(0);
    expect(acquired.json()).toMatchObject({ controller_id: "hand.started", agent_name: "hand-coord" });
    world.rememberSecrets();
    const release = await world.run(
      "herdr-lease-cli",
      ["controller", "release", "--checkpoint-ref", "acme/api#7-c0", "--checkpoint-sha256", SHA_A, "--json"],
      env,
    );
    expect(release.exitCode, release.stderr).toBe(0);
  });

  test("no lease id or fence token ever appeared in output, Herdr requests or state files", async () => {
    expect(await world.leakedSecrets()).toEqual([]);
    // The scan is live: a credential that did reach output would be reported.
    world.record(`oops ${credential().fence_token}`);
    expect(await world.leakedSecrets()).toEqual([credential().fence_token]);
  });
});
