// register-agent-cli through the real binary on every store: the result shape, the token once, immutable and
// mutable fields, the live-holder rule, the --force compare-and-swap, and the first check-in sharing the service.
import { readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";
import { errorOf, identityEnv, json, register, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("register-agent-cli on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target);
  });
  afterAll(() => target.dispose());

  test("first registration: every input stored, the token once (hash only in the store), the vault written 0600", async () => {
    const r = await registered(env, "reg-first", {
      role: "builder",
      caps: ["ts", "sql"],
      args: [
        ...["--class", "builder", "--description", "fixes things", "--host-id", "host-x", "--managed"],
        ...["--host-shell-pids", "300,200,1", "--cli-profile", "Codex", "--terminal-title-ref", "reg-first"],
      ],
    });
    expect(r).toMatchObject({
      success: true,
      action: "registered",
      protocol_version: 1,
      agent: {
        name: "reg-first",
        role: "builder",
        capabilities: ["ts", "sql"],
        class: "builder",
        description: "fixes things",
        host_id: "host-x",
        managed: true,
        agent_pid: null,
        // Process ancestry is kept only by the agent's own host, and this registration names another one (host-x).
        host_shell_pids: null,
        cli_profile: "codex",
        terminal_title_ref: "reg-first",
        auth_state: "active",
        alive: true,
        liveness_evidence: "age",
      },
    });
    expect(r.agent.session_id).toMatch(/^ses_[0-9a-f]{32}$/);
    expect(r.agent_token).toMatch(/^act_/);
    expect(r.auth_note).toContain("shown once");
    const vault = r.vault_file as string;
    expect(readFileSync(vault, "utf8").trim()).toBe(r.agent_token);
    expect(statSync(vault).mode & 0o777).toBe(0o600);
    const [row] = await target.sql("SELECT token_hash FROM agents WHERE name = $1", ["reg-first"]);
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(r.agent_token);
  });

  test("defaults: class unclassified, host id from this machine, unknown cli profile stored as null with a note", async () => {
    const r = await registered(env, "reg-defaults", { args: ["--cli-profile", "my-own-cli"] });
    expect(r.agent.class).toBe("unclassified");
    expect(r.agent.host_id).toBe(readFileSync("/etc/machine-id", "utf8").trim());
    expect(r.agent.managed).toBe(false);
    expect(r.agent.cli_profile).toBeNull();
    expect(r.cli_profile_note).toContain("not a known agent CLI");
  });

  test("re-register keeps the token, needs it, notes different capabilities, keeps the description, replaces holder facts", async () => {
    const first = await registered(env, "reg-again", {
      caps: ["ts"],
      args: ["--description", "keep me", "--cli-profile", "claude", "--host-shell-pids", "9,1", "--terminal-title-ref", "t1"],
    });
    expect(first.agent.host_shell_pids).toEqual([9, 1]);
    // The holder is alive by age, so only its own session being gone lets a plain re-register through.
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["reg-again"]);
    const again = await registered(env, "reg-again", { role: "reviewer", caps: ["ts", "go"] });
    expect(again.action).toBe("re_registered");
    expect(again.agent_token).toBeUndefined();
    expect(again.agent).toMatchObject({
      role: "reviewer",
      capabilities: ["ts"],
      description: "keep me",
      cli_profile: null,
      host_shell_pids: null,
      terminal_title_ref: null,
    });
    expect(again.capabilities_note).toContain("immutable");
    expect(again.capabilities_note).toContain("agent-identity-cli expand-capabilities");
    expect(again.agent.session_id).not.toBe(first.agent.session_id);
    const vaultToken = readFileSync(join(target.env.AGENT_COMPUTER_HOME as string, "tokens", "reg-again.token"), "utf8").trim();
    expect(vaultToken).toBe(first.agent_token);
  });

  test("re-registering without the token or with a wrong one is AUTH_FAILED and changes nothing", async () => {
    await registered(env, "reg-auth");
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["reg-auth"]);
    // Without the vault file (the SQLite store shares its state dir, so the file is moved aside).
    const vault = join(target.env.AGENT_COMPUTER_HOME as string, "tokens", "reg-auth.token");
    renameSync(vault, `${vault}.aside`);
    const missing = await register(env, "reg-auth", { role: "thief" });
    renameSync(`${vault}.aside`, vault);
    expect(missing.exitCode).toBe(3);
    expect(errorOf(missing).code).toBe("AUTH_FAILED");
    const wrong = await register({ ...env, RELAY_AGENT_TOKEN: "act_not-the-token" }, "reg-auth", { role: "thief" });
    expect(wrong.exitCode).toBe(3);
    expect(errorOf(wrong).code).toBe("AUTH_FAILED");
    const [row] = await target.sql("SELECT role FROM agents WHERE name = $1", ["reg-auth"]);
    expect(row?.role).toBe("builder");
  });

  test("class, host id and managed are immutable: a different value is INVALID_INPUT and nothing is written", async () => {
    await registered(env, "reg-immutable", { args: ["--class", "auditor"] });
    for (const args of [["--class", "builder"], ["--host-id", "another-host"], ["--managed"]]) {
      const r = await register(env, "reg-immutable", { role: "changed", args });
      expect(r.exitCode).toBe(2);
      expect(errorOf(r)).toMatchObject({ code: "INVALID_INPUT" });
      expect(errorOf(r).message).toContain("immutable");
    }
    const [row] = await target.sql("SELECT role, class FROM agents WHERE name = $1", ["reg-immutable"]);
    expect(row).toMatchObject({ role: "builder", class: "auditor" });
  });

  test("a live holder makes a plain re-register fail NAME_COLLISION_ACTIVE with the existing session id", async () => {
    const holder = await registered(env, "reg-held");
    const r = await register(env, "reg-held");
    expect(r.exitCode).toBe(4);
    expect(errorOf(r)).toMatchObject({
      code: "NAME_COLLISION_ACTIVE",
      existing_session_id: holder.agent.session_id,
      liveness_evidence: "age",
    });
    expect(errorOf(r).hint).toContain(`--expected-session-id ${holder.agent.session_id}`);
  });

  test("--force is a compare-and-swap on the session id read; the stale id loses; --force alone is INVALID_INPUT", async () => {
    const holder = await registered(env, "reg-force");
    const bare = await register(env, "reg-force", { args: ["--force"] });
    expect(bare.exitCode).toBe(2);
    expect(errorOf(bare).code).toBe("INVALID_INPUT");
    expect(errorOf(bare).message).toContain("--expected-session-id");
    const expectNull = await register(env, "reg-force", { args: ["--force", "--expected-session-id", "null"] });
    expect(expectNull.exitCode).toBe(4);
    expect(errorOf(expectNull)).toMatchObject({
      code: "FORCE_PRECONDITION_FAILED",
      expected_session_id: null,
      actual_session_id: holder.agent.session_id,
    });
    const won = await registered(env, "reg-force", {
      args: ["--force", "--expected-session-id", holder.agent.session_id as string],
    });
    expect(won.action).toBe("taken_over");
    expect(won.ended_session_id).toBe(holder.agent.session_id);
    const stale = await register(env, "reg-force", {
      args: ["--force", "--expected-session-id", holder.agent.session_id as string],
    });
    expect(errorOf(stale)).toMatchObject({
      code: "FORCE_PRECONDITION_FAILED",
      expected_session_id: holder.agent.session_id,
      actual_session_id: won.agent.session_id,
    });
    const open = await target.sql("SELECT id FROM sessions WHERE agent_name = $1 AND ended_at IS NULL", ["reg-force"]);
    expect(open.map((r) => r.id)).toEqual([won.agent.session_id]);
  });

  test("--force --expected-session-id null takes a name with no open session; an unknown name registers", async () => {
    const fresh = await registered(env, "reg-force-null", { args: ["--force", "--expected-session-id", "null"] });
    expect(fresh.action).toBe("registered");
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["reg-force-null"]);
    const again = await registered(env, "reg-force-null", { args: ["--force", "--expected-session-id", "null"] });
    expect(again.action).toBe("taken_over");
    const wrong = await register(env, "reg-never-seen", { args: ["--force", "--expected-session-id", `ses_${"0".repeat(32)}`] });
    expect(errorOf(wrong)).toMatchObject({ code: "FORCE_PRECONDITION_FAILED", actual_session_id: null });
  });

  test("a takeover bounces the old session's unread mail to its senders", async () => {
    const holder = await registered(env, "reg-bounce");
    await registered(env, "reg-sender");
    const sent = await json("agent-send-cli", ["--from", "reg-sender", "--to", "reg-bounce", "--body", "hello"], env);
    expect(sent.exitCode).toBe(0);
    await registered(env, "reg-bounce", { args: ["--force", "--expected-session-id", holder.agent.session_id as string] });
    const inbox = await json("agent-inbox-cli", ["--agent-id", "reg-sender"], env);
    const bounce = inbox.json<{ messages: { kind: string; body: string }[] }>().messages.find((m) => m.kind === "bounce");
    expect(bounce?.body).toContain("reg-bounce");
  });

  test("argument errors: bad name, missing role, --expected-session-id without --force, pid start without pid", async () => {
    const cases: string[][] = [
      ["--name", "bad name!", "--role", "r", "--capabilities", "a"],
      ["--name", "ok", "--capabilities", "a"],
      ["--name", "ok", "--role", "r", "--capabilities", "a", "--expected-session-id", "null"],
      ["--name", "ok", "--role", "r", "--capabilities", "a", "--agent-pid-start", "123"],
      ["--name", "ok", "--role", "r", "--capabilities", "a", "--class", "boss"],
      ["--name", "agent-computer", "--role", "r", "--capabilities", "a"],
    ];
    for (const args of cases) {
      const r = await runBin("register-agent-cli", args, { env });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("INVALID_INPUT");
    }
    expect(await target.sql("SELECT name FROM agents WHERE name IN ('ok', 'agent-computer')")).toEqual([]);
  });

  test("the first agent-checkin-cli --confirm registers through the same service", async () => {
    const r = await json(
      "agent-checkin-cli",
      ["--agent-id", "reg-via-checkin", "--role", "builder", "--caps", "ts", "--confirm"],
      env,
    );
    expect(r.exitCode).toBe(0);
    expect(r.json()).toMatchObject({ action: "register_and_start_session" });
    const [row] = await target.sql("SELECT capabilities, class, host_id FROM agents WHERE name = $1", ["reg-via-checkin"]);
    expect(row).toMatchObject({
      capabilities: '["ts"]',
      class: "unclassified",
      host_id: readFileSync("/etc/machine-id", "utf8").trim(),
    });
    // The first check-in of a name counts against the registration limits like register-agent-cli does.
    const limitedEnv = identityEnv(target, { AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "1/3600" });
    expect((await json("agent-checkin-cli", ["--agent-id", "reg-via-checkin-2", "--confirm"], limitedEnv)).exitCode).toBe(0);
    const limited = await json("agent-checkin-cli", ["--agent-id", "reg-via-checkin-3", "--confirm"], limitedEnv);
    expect(limited.exitCode).toBe(6);
    expect(errorOf(limited).code).toBe("RATE_LIMITED");
  });
});
