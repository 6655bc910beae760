// agent-identity-cli through the real binary on every store: expand-capabilities, rotate-token, revoke-token with
// and without recovery (and the recovery flow of register-agent-cli), unregister, show.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";
import { errorOf, identityEnv, json, register, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("agent-identity-cli on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), "ac-identity-"));
  const vaultOf = (name: string) => join(target.env.AGENT_COMPUTER_HOME as string, "tokens", `${name}.token`);
  const identity = (sub: string, name: string, args: string[] = [], extra: Record<string, string> = {}) =>
    json("agent-identity-cli", [sub, "--name", name, ...args], { ...env, ...extra });
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target);
  });
  afterAll(() => target.dispose());

  test("expand-capabilities adds only; nothing new is NO_OP_EXPANSION, --remove is REDUCTION_NOT_ALLOWED", async () => {
    await registered(env, "id-expand", { caps: ["ts"] });
    const added = await identity("expand-capabilities", "id-expand", ["--add", "ts,go", "--add", "sql"]);
    expect(added.json()).toMatchObject({ added: ["go", "sql"], capabilities: ["ts", "go", "sql"] });
    const noop = await identity("expand-capabilities", "id-expand", ["--add", "go"]);
    expect(noop.exitCode).toBe(4);
    expect(errorOf(noop).code).toBe("NO_OP_EXPANSION");
    const reduce = await identity("expand-capabilities", "id-expand", ["--remove", "go", "--add", "rust"]);
    expect(reduce.exitCode).toBe(4);
    expect(errorOf(reduce).code).toBe("REDUCTION_NOT_ALLOWED");
    const [row] = await target.sql("SELECT capabilities FROM agents WHERE name = $1", ["id-expand"]);
    expect(JSON.parse(row?.capabilities as string)).toEqual(["ts", "go", "sql"]);
  });

  test("expanding makes a checked-in agent take queued tasks it can now do", async () => {
    await registered(env, "id-poster", { caps: ["plan"] });
    const posted = await json(
      "agent-task-cli",
      ["post", "--agent-id", "id-poster", "--title", "t", "--body", "b", "--require-cap", "k8s"],
      env,
    );
    expect(posted.json()).toMatchObject({ routed: "queued" });
    await registered(env, "id-grower", { caps: ["ts"] });
    const grown = await identity("expand-capabilities", "id-grower", ["--add", "k8s"]);
    expect(grown.json<{ auto_assigned_tasks: { task_id: string }[] }>().auto_assigned_tasks).toEqual([
      { task_id: posted.json<{ task: { id: string } }>().task.id, title: "t", priority: "normal" },
    ]);
  });

  test("rotate-token: the new token once, in the vault; the old one stops working", async () => {
    const first = await registered(env, "id-rotate");
    const oldFile = join(dir, "old.token");
    writeFileSync(oldFile, first.agent_token as string);
    const rotated = await identity("rotate-token", "id-rotate");
    expect(rotated.exitCode).toBe(0);
    const out = rotated.json<{ agent_token: string; vault_file: string }>();
    expect(out.agent_token).toMatch(/^act_/);
    expect(out.agent_token).not.toBe(first.agent_token);
    expect(readFileSync(out.vault_file, "utf8").trim()).toBe(out.agent_token);
    const stale = await identity("show", "id-rotate", ["--token-file", oldFile]);
    expect(stale.exitCode).toBe(3);
    expect(errorOf(stale).code).toBe("AUTH_FAILED");
    expect((await identity("show", "id-rotate")).exitCode).toBe(0);
  });

  test("revoke-token without recovery: the token stops, the vault file goes, the next registration mints anew", async () => {
    const first = await registered(env, "id-revoke");
    const tokenFile = join(dir, "revoked.token");
    writeFileSync(tokenFile, first.agent_token as string);
    const revoked = await identity("revoke-token", "id-revoke");
    expect(revoked.json()).toMatchObject({ auth_state: "revoked", ended_session_id: first.agent.session_id });
    expect(revoked.json()).not.toHaveProperty("recovery_token");
    expect(existsSync(vaultOf("id-revoke"))).toBe(false);
    const denied = await identity("show", "id-revoke", ["--token-file", tokenFile]);
    expect(denied.exitCode).toBe(3);
    expect(errorOf(denied).code).toBe("AUTH_FAILED");
    const again = await registered(env, "id-revoke");
    expect(again.action).toBe("re_registered");
    expect(again.agent_token).toMatch(/^act_/);
    expect(again.agent.auth_state).toBe("active");
  });

  test("recovery: revoke --issue-recovery, then AUTH_FAILED without it, RECOVERY_REQUIRED when wrong, success mints", async () => {
    const first = await registered(env, "id-recover", { args: ["--class", "auditor"] });
    const revoked = await identity("revoke-token", "id-recover", ["--issue-recovery"]);
    const out = revoked.json<{ auth_state: string; recovery_token: string; recovery_note: string }>();
    expect(out.auth_state).toBe("recovery_pending");
    expect(out.recovery_token).toMatch(/^acr_/);
    const oldFile = join(dir, "recover-old.token");
    writeFileSync(oldFile, first.agent_token as string);
    const mesh = await json("agent-sent-cli", ["--agent-id", "id-recover", "--token-file", oldFile], env);
    expect(mesh.exitCode).toBe(3);
    expect(errorOf(mesh).code).toBe("RECOVERY_REQUIRED");

    const without = await register({ ...env, RELAY_AGENT_TOKEN: first.agent_token as string }, "id-recover");
    expect(without.exitCode).toBe(3);
    expect(errorOf(without).code).toBe("AUTH_FAILED");
    const wrongFile = join(dir, "wrong.recovery");
    writeFileSync(wrongFile, "acr_wrong");
    const wrong = await register(env, "id-recover", { args: ["--recovery-token-file", wrongFile] });
    expect(wrong.exitCode).toBe(3);
    expect(errorOf(wrong).code).toBe("RECOVERY_REQUIRED");

    const ok = await runRecovery(out.recovery_token);
    expect(ok).toMatchObject({
      action: "recovered",
      recovery_completed: true,
      agent: { auth_state: "active", class: "auditor" },
    });
    expect(ok.agent_token).toMatch(/^act_/);
    expect(readFileSync(vaultOf("id-recover"), "utf8").trim()).toBe(ok.agent_token);
    const reused = await json(
      "register-agent-cli",
      ["--name", "id-recover", "--role", "builder", "--capabilities", "ts", "--recovery-token-file", "-"],
      env,
      out.recovery_token,
    );
    expect(reused.exitCode).toBe(3);
    expect(errorOf(reused).code).toBe("AUTH_FAILED");
  });

  const runRecovery = async (recoveryToken: string) => {
    const r = await json(
      "register-agent-cli",
      ["--name", "id-recover", "--role", "builder", "--capabilities", "ts", "--recovery-token-file", "-"],
      env,
      recoveryToken,
    );
    if (r.exitCode !== 0) throw new Error(r.stderr);
    return r.json<{ action: string; agent_token: string; [k: string]: unknown }>();
  };

  test("a recovery token on a name that is not recovering is AUTH_FAILED", async () => {
    await registered(env, "id-not-recovering");
    const file = join(dir, "stray.recovery");
    writeFileSync(file, "acr_stray");
    const r = await register(env, "id-not-recovering", { args: ["--recovery-token-file", file] });
    expect(errorOf(r).code).toBe("AUTH_FAILED");
  });

  test("unregister frees the name, removes the vault file and re-routes open tasks", async () => {
    await registered(env, "id-boss", { caps: ["plan"] });
    await registered(env, "id-leaving", { caps: ["docs"] });
    const posted = await json(
      "agent-task-cli",
      ["post", "--agent-id", "id-boss", "--title", "doc it", "--body", "b", "--require-cap", "docs"],
      env,
    );
    expect(posted.json()).toMatchObject({ routed: "assigned", task: { assignee: "id-leaving" } });
    const preview = await identity("unregister", "id-leaving");
    expect(preview.exitCode, preview.stderr).toBe(0);
    expect(preview.json()).toMatchObject({
      preview: true,
      removed: false,
      open_tasks: [{ title: "doc it", state: "assigned" }],
      confirm_command: "agent-identity-cli unregister --agent-id id-leaving --confirm",
    });
    expect(await target.sql("SELECT name FROM agents WHERE name = $1", ["id-leaving"])).toEqual([{ name: "id-leaving" }]);
    expect(existsSync(vaultOf("id-leaving"))).toBe(true);
    const gone = await identity("unregister", "id-leaving", ["--confirm"]);
    expect(gone.json()).toMatchObject({ removed: true, rerouted_tasks: [{ title: "doc it", state: "queued", assignee: null }] });
    expect(existsSync(vaultOf("id-leaving"))).toBe(false);
    expect(await target.sql("SELECT name FROM agents WHERE name = $1", ["id-leaving"])).toEqual([]);
    const unknown = await identity("show", "id-leaving", [], { RELAY_AGENT_TOKEN: "act_x" });
    expect(unknown.exitCode).toBe(5);
    expect(errorOf(unknown).code).toBe("UNKNOWN_AGENT");
    const back = await registered(env, "id-leaving", { caps: ["docs", "ts"], args: ["--class", "builder"] });
    expect(back).toMatchObject({ action: "registered", agent: { capabilities: ["docs", "ts"], class: "builder" } });
    expect(back.auto_assigned_tasks?.map((t) => t.title)).toEqual(["doc it"]);
  });

  test("unregister previews in text: what would go and the exact command that does it", async () => {
    await registered(env, "id-previewed");
    const r = await runBin("agent-identity-cli", ["unregister", "--agent-id", "id-previewed"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PREVIEW \(nothing changed; add --confirm to act\): would unregister id-previewed/);
    expect(r.stdout).toContain("unacknowledged message(s) bounce to their senders");
    expect(r.stdout).toContain("to do it: agent-identity-cli unregister --agent-id id-previewed --confirm");
    expect(await target.sql("SELECT name FROM agents WHERE name = $1", ["id-previewed"])).toHaveLength(1);
  });

  test("show: registration, session and liveness, never a token or hash", async () => {
    const r = await registered(env, "id-show", { args: ["--description", "hello"] });
    const shown = await identity("show", "id-show");
    expect(shown.json()).toMatchObject({
      success: true,
      agent: { name: "id-show", description: "hello", session_id: r.agent.session_id, alive: true, liveness_evidence: "age" },
      open_tasks: 0,
    });
    expect(shown.stdout).not.toContain(r.agent_token as string);
    expect(shown.stdout).not.toMatch(/token_hash|[0-9a-f]{64}/);
  });
});
