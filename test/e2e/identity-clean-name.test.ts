// A revoked name starts clean, through the real binaries: after agent-identity-cli revoke-token without
// --issue-recovery, whoever registers the name next (on the same host, or from another state directory sharing the
// PostgreSQL store) sees none of the earlier holder's mail, threads, sent view, channels, webhooks or contact lists.
// Look-alike names are refused by register-agent-cli with the registered name.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { errorOf, identityEnv, json, register, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("a revoked name starts clean on %s", (storeName) => {
  let target: StoreTarget;
  let hostA: Record<string, string>;
  const otherHome = mkdtempSync(join(tmpdir(), "ac-clean-name-b-"));
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    hostA = identityEnv(target, { AGENT_COMPUTER_HOST_ID: "host-a" });
  });
  afterAll(async () => {
    await target.dispose();
    rmSync(otherHome, { recursive: true, force: true });
  });

  const ok = async (name: string, args: string[], env: Record<string, string>) => {
    const r = await json(name, args, env);
    expect(r.exitCode, `${name} ${args.join(" ")}: ${r.stderr}`).toBe(0);
    return r;
  };

  /** The earlier holder's life on host A: mail both ways in a thread, a channel, a webhook, a block. */
  const liveALife = async (holder: string) => {
    await registered(hostA, holder);
    await registered(hostA, `${holder}-peer`);
    const peer = `${holder}-peer`;
    const toHolder = await ok(
      "agent-send-cli",
      ["--from", peer, "--to", holder, "--body", "secret orders", "--thread", "plan"],
      hostA,
    );
    const fromHolder = await ok("agent-send-cli", ["--from", holder, "--to", peer, "--body", "secret report"], hostA);
    await ok("agent-channel-cli", ["create", "--agent-id", holder, "--channel", `${holder}-room`], hostA);
    await ok(
      "agent-webhook-cli",
      ["add", "--agent-id", holder, "--url", "https://hooks.example.com/old", "--events", "message"],
      hostA,
    );
    await ok("agent-contacts-cli", ["block", "--agent-id", holder, "--contact", peer], hostA);
    await ok("agent-identity-cli", ["revoke-token", "--name", holder], hostA);
    return {
      ids: [toHolder.json<{ id: string }>().id, fromHolder.json<{ id: string }>().id],
      thread: toHolder.json<{ thread_id: string }>().thread_id,
    };
  };

  const expectClean = async (holder: string, env: Record<string, string>, old: { ids: string[]; thread: string }) => {
    const next = await registered(env, holder);
    expect(next.agent_token).toMatch(/^act_/);
    const as = ["--agent-id", holder];
    expect((await ok("agent-sent-cli", as, env)).json<{ messages: unknown[] }>().messages).toEqual([]);
    for (const thread of [...old.ids, old.thread, "plan"]) {
      const read = await json("agent-thread-cli", [...as, "--thread", thread], env);
      expect(read.exitCode, thread).toBe(5);
      expect(errorOf(read).code).toBe("NOT_FOUND");
    }
    const search = await ok("agent-search-cli", [...as, "--query", "secret"], env);
    expect(search.json<{ messages: unknown[] }>().messages).toEqual([]);
    expect((await ok("agent-channel-cli", ["list", ...as], env)).json<{ channels: unknown[] }>().channels).toEqual([]);
    expect((await ok("agent-webhook-cli", ["list", ...as], env)).json<{ endpoints: unknown[] }>().endpoints).toEqual([]);
    expect((await ok("agent-contacts-cli", ["show", ...as], env)).json()).toMatchObject({ policy: "open", block: [] });
  };

  test("registered again on the same host", async () => {
    const old = await liveALife("clean-same");
    await expectClean("clean-same", hostA, old);
  });

  test.skipIf(storeName !== "postgres")("registered again from another state directory sharing the store", async () => {
    const old = await liveALife("clean-other");
    const hostB = { ...hostA, AGENT_COMPUTER_HOME: otherHome, AGENT_COMPUTER_HOST_ID: "host-b" };
    await expectClean("clean-other", hostB, old);
  });

  test("revoke-token says the history ends", async () => {
    await registered(hostA, "clean-note");
    const revoked = await ok("agent-identity-cli", ["revoke-token", "--name", "clean-note"], hostA);
    expect(revoked.json<{ note: string }>().note).toMatch(/history ended/);
  });

  test("a look-alike of a registered name is refused with that name (exit 4, NAME_LOOKALIKE)", async () => {
    await registered(hostA, "lookalike");
    for (const name of ["LookAlike", "lookalike."]) {
      const r = await register(hostA, name);
      expect(r.exitCode, r.stderr).toBe(4);
      expect(errorOf(r)).toMatchObject({ code: "NAME_LOOKALIKE", existing_agent_id: "lookalike" });
    }
    const system = await register(hostA, "agent-computer.");
    expect(system.exitCode).toBe(2);
    expect(errorOf(system).code).toBe("INVALID_INPUT");
  });
});
