// Presence liveness through the real binaries on every store: a SIGKILLed holder is proven dead by its pid and
// start time and its name re-registers without --force; a reused pid counts as dead; another host falls back to
// age; agents-list-cli shows which evidence each status rests on.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { errorOf, identityEnv, json, register, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

interface Listed {
  agent_id: string;
  alive: boolean;
  liveness_evidence: string;
  session_id: string;
}

describe.each(storeNames)("liveness on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  const holders: ResultPromise[] = [];
  /** A long-running process standing in for an agent (its pid is what the agent registers). */
  const spawnHolder = (): { pid: number; kill(): Promise<void> } => {
    const child = execa("sleep", ["300"]);
    holders.push(child);
    return {
      pid: child.pid as number,
      kill: async () => {
        child.kill("SIGKILL");
        await child.catch(() => undefined);
      },
    };
  };
  const listed = async (name: string, extra: Record<string, string> = {}, stale = true): Promise<Listed | undefined> => {
    const r = await json("agents-list-cli", stale ? ["--include-stale"] : [], { ...env, ...extra });
    return r.json<{ agents: Listed[] }>().agents.find((a) => a.agent_id === name);
  };
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target);
  });
  afterEach(async () => {
    for (const child of holders.splice(0)) {
      child.kill("SIGKILL");
      await child.catch(() => undefined);
    }
  });
  afterAll(() => target.dispose());
  /** The file in which the registering host keeps an agent's process (local/agent-processes.ts). */
  const processFile = (name: string): string => {
    const root = join(env.AGENT_COMPUTER_HOME as string, "processes");
    const dir = readdirSync(root).find((d) => existsSync(join(root, d, `${name}.json`)));
    if (!dir) throw new Error(`no process recorded for ${name} in ${root}`);
    return join(root, dir, `${name}.json`);
  };

  test("a SIGKILLed holder is dead by pid + start time and its name re-registers without --force", async () => {
    const holder = spawnHolder();
    const first = await registered(env, "live-killed", { args: ["--agent-pid", String(holder.pid)] });
    expect(first.agent).toMatchObject({ agent_pid: holder.pid, alive: true, liveness_evidence: "pid" });
    expect(first.agent.agent_pid_start).toMatch(/^\d+$/);
    // The pid is a fact of this host: kept in its state directory, nowhere in the (possibly shared) store.
    const [row] = await target.sql("SELECT * FROM agents WHERE name = $1", ["live-killed"]);
    expect(Object.values(row ?? {}).map(String)).not.toContain(String(holder.pid));
    expect(JSON.parse(readFileSync(processFile("live-killed"), "utf8"))).toMatchObject({ agentPid: holder.pid });

    const blocked = await register(env, "live-killed");
    expect(blocked.exitCode).toBe(4);
    expect(errorOf(blocked)).toMatchObject({ code: "NAME_COLLISION_ACTIVE", liveness_evidence: "pid" });
    expect(await listed("live-killed", {}, false)).toMatchObject({ alive: true, liveness_evidence: "pid" });

    await holder.kill();
    // The session is still well within its ttl: only the pid says the holder is gone.
    expect(await listed("live-killed", {}, false)).toBeUndefined();
    expect(await listed("live-killed")).toMatchObject({
      alive: false,
      liveness_evidence: "pid",
      session_id: first.agent.session_id,
    });

    const again = await registered(env, "live-killed");
    expect(again).toMatchObject({ action: "re_registered", ended_session_id: first.agent.session_id });
    expect(again.agent).toMatchObject({ agent_pid: null, liveness_evidence: "age", alive: true });
  });

  test("a pid now owned by a process with another start time (reused pid) counts as dead", async () => {
    const holder = spawnHolder();
    const first = await registered(env, "live-reused", { args: ["--agent-pid", String(holder.pid)] });
    // The recorded start time no longer matches the process that has this pid now: exactly what pid reuse looks like.
    const file = processFile("live-reused");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), agentPidStart: "1" }));
    expect(await listed("live-reused")).toMatchObject({ alive: false, liveness_evidence: "pid" });
    const again = await registered(env, "live-reused");
    expect(again.ended_session_id).toBe(first.agent.session_id);
  });

  test("a start time that does not match the pid is refused at registration", async () => {
    const holder = spawnHolder();
    const r = await register(env, "live-bad-start", { args: ["--agent-pid", String(holder.pid), "--agent-pid-start", "1"] });
    expect(r.exitCode).toBe(2);
    expect(errorOf(r).message).toContain("--agent-pid-start");
    const dead = await register(env, "live-bad-start", { args: ["--agent-pid", "4194303"] });
    expect(errorOf(dead).message).toContain("no process");
  });

  test("the holder itself (same pid and start time) re-registers and renews its session", async () => {
    const holder = spawnHolder();
    const first = await registered(env, "live-self", { args: ["--agent-pid", String(holder.pid)] });
    const again = await registered(env, "live-self", { args: ["--agent-pid", String(holder.pid)] });
    expect(again).toMatchObject({ action: "renewed" });
    expect(again.agent.session_id).toBe(first.agent.session_id);
  });

  test("a live pid keeps the name even after the session's ttl ran out (idle is not dead)", async () => {
    const holder = spawnHolder();
    await registered(env, "live-idle", { args: ["--agent-pid", String(holder.pid)] });
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["live-idle"]);
    const r = await register(env, "live-idle");
    expect(errorOf(r)).toMatchObject({ code: "NAME_COLLISION_ACTIVE", existing_session_id: null, liveness_evidence: "pid" });
    const taken = await registered(env, "live-idle", { args: ["--force", "--expected-session-id", "null"] });
    expect(taken.action).toBe("taken_over");
  });

  test("on another host the pid proves nothing: liveness falls back to age", async () => {
    const holder = spawnHolder();
    const hostA = { AGENT_COMPUTER_HOST_ID: "host-a" };
    const hostB = { AGENT_COMPUTER_HOST_ID: "host-b" };
    await registered({ ...env, ...hostA }, "live-remote", { args: ["--agent-pid", String(holder.pid)] });
    await holder.kill();
    expect(await listed("live-remote", hostA)).toMatchObject({ alive: false, liveness_evidence: "pid" });
    expect(await listed("live-remote", hostB)).toMatchObject({ alive: true, liveness_evidence: "age" });
    const fromB = await register({ ...env, ...hostB }, "live-remote");
    expect(errorOf(fromB)).toMatchObject({ code: "NAME_COLLISION_ACTIVE", liveness_evidence: "age" });
    // Age decides there: once the session's ttl has run out the name is free without --force.
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["live-remote"]);
    expect((await registered({ ...env, ...hostB }, "live-remote")).action).toBe("re_registered");
  });

  test("a pid can only be registered from its own host", async () => {
    await registered({ ...env, AGENT_COMPUTER_HOST_ID: "host-c" }, "live-pinned");
    await target.sql("UPDATE sessions SET expires_at = 1 WHERE agent_name = $1", ["live-pinned"]);
    const r = await register({ ...env, AGENT_COMPUTER_HOST_ID: "host-d" }, "live-pinned", {
      args: ["--agent-pid", String(process.pid)],
    });
    expect(r.exitCode).toBe(2);
    expect(errorOf(r).message).toContain("its own host");
  });
});
