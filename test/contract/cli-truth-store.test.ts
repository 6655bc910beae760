// The command layer of truthful outcomes, in process against every store: what agent-send-cli prints to an
// expired sender, and which token source an AUTH_FAILED names (never the token).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import registerCommand, { registerOptionsSchema } from "../../app/agent_computer/src/cli/identity/register-agent-cli.ts";
import type { CommandContext } from "../../app/agent_computer/src/cli/kernel/command-context.ts";
import { invokeCommand } from "../../app/agent_computer/src/cli/kernel/composition-root.ts";
import { readLimited } from "../../app/agent_computer/src/cli/kernel/input.ts";
import sendCommand, { sendOptionsSchema } from "../../app/agent_computer/src/cli/mesh/agent-send-cli.ts";
import type { SendResult } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { isAppError } from "../../app/agent_computer/src/errors.ts";
import { writeVaultToken } from "../../app/agent_computer/src/local/vault.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("agent-send-cli tells the sender the truth [%s]", (storeName) => {
  let mesh: MeshAgents;

  const ctxWith = (env: Record<string, string | undefined> = {}): CommandContext => {
    const full = { ...mesh.target.env, RELAY_AGENT_TOKEN: undefined, ...env };
    // The suite's clock stands for the cluster's: without serverNow the kernel takes it as the server's.
    const onSuiteClock: Store = { ...mesh.store, serverNow: undefined };
    return {
      env: full,
      paths: resolvePaths(full),
      now: () => mesh.clock.now,
      store: async () => onSuiteClock,
      readInput: readLimited,
    };
  };
  /** Checks the agent in (again) and keeps its token in this host's vault too, where the commands look. */
  const enter = async (agentId: string, ttlSeconds = 3600) => {
    const r = await mesh.join(agentId, { ttlSeconds });
    if (r.agent_token) await writeVaultToken(resolvePaths(mesh.target.env), agentId, r.agent_token);
  };
  const options = (from: string, extra: Record<string, unknown> = {}) =>
    sendOptionsSchema.parse({ agentId: from, to: ["reader"], body: "hello", ...extra });
  /** The AppError a send throws, with its code, message, hint and details as --json would print them. */
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
    return { exitCode: error.exitCode, ...(error.toJSON().error as { code: string; message: string; hint?: string }) };
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, Date.now());
    await enter("reader");
    await enter("writer", 60);
  });
  afterAll(async () => mesh?.close());

  test("an expired sender reads, in the human output and in --json, the exact check-in command to run", async () => {
    mesh.clock.advance(61_000);
    const result = await (invokeCommand(sendCommand, options("writer"), ctxWith()) as Promise<SendResult>);
    expect(result).toMatchObject({
      sender_session: "expired",
      sender_checkin: "agent-checkin-cli --agent-id writer --confirm",
    });
    const text = sendCommand.render(result, options("writer"));
    expect(text).toContain("YOUR SESSION HAS EXPIRED");
    expect(text).toContain("agent-checkin-cli --agent-id writer --confirm");
    await enter("writer", 60);
    const live = await (invokeCommand(sendCommand, options("writer"), ctxWith()) as Promise<SendResult>);
    expect(sendCommand.render(live, options("writer"))).not.toContain("EXPIRED");
  });

  test("RELAY_AGENT_TOKEN holding another agent's token: AUTH_FAILED names RELAY_AGENT_TOKEN, not the token", async () => {
    const other = mesh.token("reader") as string;
    const r = await refusal(
      invokeCommand(sendCommand, options("writer"), ctxWith({ RELAY_AGENT_TOKEN: other })) as Promise<SendResult>,
    );
    expect(r).toMatchObject({ exitCode: 3, code: "AUTH_FAILED", token_source: "RELAY_AGENT_TOKEN" });
    expect(r.message).toBe("the token from RELAY_AGENT_TOKEN does not match agent writer");
    expect(r.hint).toContain("unset it");
    expect(JSON.stringify(r)).not.toContain(other);
  });

  test("a --token-file holding a wrong token: AUTH_FAILED names the flag and the path, not the token", async () => {
    const file = join(resolvePaths(mesh.target.env).stateDir, `wrong-${storeName}.token`);
    const wrong = mesh.token("reader") as string;
    writeFileSync(file, `${wrong}\n`, { mode: 0o600 });
    const r = await refusal(invokeCommand(sendCommand, options("writer", { tokenFile: file }), ctxWith()) as Promise<SendResult>);
    expect(r).toMatchObject({ exitCode: 3, code: "AUTH_FAILED", token_source: `--token-file ${file}` });
    expect(r.message).toBe(`the token from --token-file ${file} does not match agent writer`);
    expect(JSON.stringify(r)).not.toContain(wrong);
  });

  test("register-agent-cli with another agent's token: AUTH_FAILED names RELAY_AGENT_TOKEN, not the token", async () => {
    const other = mesh.token("reader") as string;
    const registering = registerOptionsSchema.parse({ agentId: "writer", role: "builder", capabilities: ["ts"] });
    const r = await refusal(invokeCommand(registerCommand, registering, ctxWith({ RELAY_AGENT_TOKEN: other })));
    expect(r).toMatchObject({ exitCode: 3, code: "AUTH_FAILED", token_source: "RELAY_AGENT_TOKEN" });
    expect(r.message).toBe("the token from RELAY_AGENT_TOKEN does not match agent writer");
    expect(JSON.stringify(r)).not.toContain(other);
  });

  test("a stale vault entry: AUTH_FAILED names the vault file", async () => {
    const paths = resolvePaths(mesh.target.env);
    await writeVaultToken(paths, "writer", "act_stale-token-from-before-a-rotation");
    try {
      const r = await refusal(invokeCommand(sendCommand, options("writer"), ctxWith()) as Promise<SendResult>);
      expect(r.message).toBe(`the token from the vault (${paths.vaultDir}/writer.token) does not match agent writer`);
      expect(JSON.stringify(r)).not.toContain("act_stale");
    } finally {
      await writeVaultToken(paths, "writer", mesh.token("writer") as string);
    }
  });
});
