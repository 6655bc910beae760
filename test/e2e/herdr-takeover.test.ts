// Controller takeover through bin/: only of the lease the caller names, only once it has expired AND its holder is
// gone (pane not found, agent done or blocked, process ended; asked of the Herdr server it was bound under), as a
// compare-and-swap; afterwards the old holder is fenced out of every mutating
// command and the new one inherits the controller's leases. On the embedded store: the swap itself is proved on every
// store, without the host lock, by test/contract/herdr-takeover-store.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { binaryForm, binPath } from "../helpers/bin.ts";
import { FAST_TIMING, type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

const AUTHORITY = ["--authority-ref", "acme/api#7", "--authority-sha256", SHA_A];
const error = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string; hint?: string } }).error;

describe.each(["sqlite"] as const)("controller takeover [%s]", (storeName) => {
  let target: StoreTarget;
  let world: HerdrWorld;
  /** A named agent in a pane of its own, and the env that makes a binary run "in" it. */
  const agentPane = async (name: string, controllerId = "proj.ctl") => {
    const agent = await world.fake.script({ op: "createAgent", kind: "claude", cwd: world.fake.dir, name });
    return { paneId: agent.pane_id, env: { HERDR_PANE_ID: agent.pane_id, AGENT_CONTROL_CONTROLLER_ID: controllerId } };
  };
  const takeover = (expected: string, env: Record<string, string>) =>
    world.run("herdr-lease-cli", ["controller", "takeover", "--expected-lease", expected, ...AUTHORITY, "--json"], env);
  const expireAll = () => target.sql("UPDATE herdr_controller_leases SET expires_at = 1");
  /** The holder's agent ends its turn unseen (done): with the lease expired, that is evidence it is gone. */
  const holderDone = async (name: string) => {
    const pane = (await world.fake.state()).panes.find((p) => p.agent?.name === name);
    await world.fake.script({ op: "setState", paneId: pane?.paneId as string, status: "done" });
  };
  const leaseRow = async (controllerId: string) =>
    (await target.sql("SELECT generation, host_id FROM herdr_controller_leases WHERE controller_id = $1", [controllerId]))[0];

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    world = await startHerdrWorld({ storeEnv: target.env });
    await world.acquire();
  });
  afterAll(async () => {
    await world?.stop();
    await target?.dispose();
  });

  test("acquire no longer steals an expired, unreleased lease: it names the takeover to use", async () => {
    const rival = await agentPane("rival");
    const held = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"], rival.env);
    expect(held.exitCode).toBe(4);
    expect(error(held.stderr).message).toContain("proj.ctl:g1");
    await expireAll();
    const expired = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"], rival.env);
    expect(expired.exitCode).toBe(4);
    expect(error(expired.stderr)).toMatchObject({ code: "CONTROLLER_HELD" });
    expect(error(expired.stderr).hint).toContain("controller takeover --expected-lease proj.ctl:g1");
    expect(Number((await leaseRow("proj.ctl"))?.generation)).toBe(1);
    // Its own agent resumes it (generation 2).
    await world.json("herdr-lease-cli", ["controller", "resume", ...AUTHORITY]);
    world.rememberSecrets();
  });

  test("after expiry the named lease is taken over; the old holder is fenced from ask, collect and renew", async () => {
    const reviewer = await world.json<{ pane_id: string }>("herdr-lease-cli", [
      "reviewer",
      "start",
      "--name",
      "rev-a",
      "--kind",
      "claude",
      "--cwd",
      world.fake.dir,
      "--purpose",
      "review",
    ]);
    await world.fake.script({ op: "onPrompt", paneId: reviewer.pane_id, defaultTurn: "normal" });
    const ask = await world.run("herdr-agent-control", ["ask", "rev-a", "--json", "--", "first look"]);
    expect(ask.exitCode, ask.stderr).toBe(0);
    const asked = ask.json<{ results: { receipt: string; state: string }[] }>();
    const receipt = asked.results[0]?.receipt as string;
    expect(asked.results[0]?.state).toBe("completed");
    const credentials = join(world.home, "herdr", "credentials", "proj.ctl.json");
    const binding = join(world.home, "herdr", "controllers", "proj.ctl.json");
    const oldFiles = { credential: readFileSync(credentials, "utf8"), binding: readFileSync(binding, "utf8") };

    const wrong = await takeover("proj.ctl:g7", (await agentPane("coord-x")).env);
    expect(wrong.exitCode).toBe(4);
    expect(error(wrong.stderr)).toMatchObject({ code: "CONTROLLER_LEASE_CHANGED" });
    expect(error(wrong.stderr).message).toContain("is now proj.ctl:g2");

    await expireAll();
    const successor = await agentPane("coord-b");
    // Expired, but its holder is idle in its pane: not gone.
    const idle = await takeover("proj.ctl:g2", successor.env);
    expect(error(idle.stderr)).toMatchObject({ code: "CONTROLLER_HELD" });
    expect(error(idle.stderr).message).toContain("is still idle");
    await holderDone("coord");
    const won = await takeover("proj.ctl:g2", successor.env);
    expect(won.exitCode, won.stderr).toBe(0);
    world.rememberSecrets();
    expect(won.json()).toMatchObject({
      lease_ref: "proj.ctl:g3",
      agent_name: "coord-b",
      predecessor: { lease_ref: "proj.ctl:g2", evidence: "done" },
    });

    // The old holder, still running in its pane: every mutating command is fenced out, nothing is sent.
    const promptsBefore = (await world.fake.prompts(reviewer.pane_id)).length;
    for (const args of [
      ["ask", "rev-a", "--json", "--", "again"],
      ["collect", "--receipt", receipt, "--json"],
    ]) {
      const fenced = await world.run("herdr-agent-control", args);
      expect(fenced.exitCode, fenced.stderr).toBe(4);
      expect(error(fenced.stderr)).toMatchObject({ code: "CONTROLLER_FENCED" });
      expect(error(fenced.stderr).message).toContain("proj.ctl:g2");
    }
    expect(error((await world.run("herdr-lease-cli", ["controller", "renew", "--json"])).stderr).code).toBe("CONTROLLER_FENCED");
    expect(error((await world.run("herdr-lease-cli", ["controller", "resume", ...AUTHORITY, "--json"])).stderr).code).toBe(
      "CONTROLLER_FENCED",
    );
    expect((await world.fake.prompts(reviewer.pane_id)).length).toBe(promptsBefore);

    // The old credential itself (as its holder's host would still have it) is refused by the store's fence.
    const newFiles = { credential: readFileSync(credentials, "utf8"), binding: readFileSync(binding, "utf8") };
    writeFileSync(credentials, oldFiles.credential);
    writeFileSync(binding, oldFiles.binding);
    try {
      const stale = await world.run("herdr-agent-control", ["ask", "rev-a", "--json", "--", "again"]);
      expect(error(stale.stderr)).toMatchObject({ code: "CONTROLLER_FENCED" });
      expect(error(stale.stderr).message).toContain("no longer current");
    } finally {
      writeFileSync(credentials, newFiles.credential);
      writeFileSync(binding, newFiles.binding);
    }

    // The new holder inherits the reviewer lease and its receipts.
    const inherited = await world.run("herdr-agent-control", ["ask", "rev-a", "--json", "--", "second look"], successor.env);
    expect(inherited.exitCode, inherited.stderr).toBe(0);
    expect((await world.fake.prompts(reviewer.pane_id)).length).toBe(promptsBefore + 1);
  });

  test("two takeovers of the same predecessor at once: exactly one wins, the loser is told the current lease", async () => {
    await expireAll();
    await holderDone("coord-b");
    const [a, b] = await Promise.all([agentPane("coord-c"), agentPane("coord-d")]);
    const results = await Promise.all([takeover("proj.ctl:g3", a.env), takeover("proj.ctl:g3", b.env)]);
    world.rememberSecrets();
    expect(results.map((r) => r.exitCode).sort()).toEqual([0, 4]);
    const loser = results.find((r) => r.exitCode === 4);
    expect(error(loser?.stderr ?? "")).toMatchObject({ code: "CONTROLLER_LEASE_CHANGED" });
    expect(error(loser?.stderr ?? "").message).toContain("is now proj.ctl:g4");
    expect(Number((await leaseRow("proj.ctl"))?.generation)).toBe(4);
  });

  test("an unexpired lease is never taken over; once expired, pane_not_found for the holder's pane is evidence", async () => {
    const holder = await agentPane("holder", "pane.ctl");
    const acquired = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"], holder.env);
    expect(acquired.exitCode, acquired.stderr).toBe(0);
    world.rememberSecrets();
    const taker = await agentPane("taker", "pane.ctl");
    const alive = await takeover("pane.ctl:g1", taker.env);
    expect(alive.exitCode).toBe(4);
    expect(error(alive.stderr)).toMatchObject({ code: "CONTROLLER_HELD" });
    expect(error(alive.stderr).message).toContain("is held until");
    await world.fake.script({ op: "closePane", paneId: holder.paneId });
    const unexpired = await takeover("pane.ctl:g1", taker.env);
    expect(error(unexpired.stderr)).toMatchObject({ code: "CONTROLLER_HELD" });
    await expireAll();
    // A failing Herdr read is no evidence: nothing is taken.
    await world.fake.script({ op: "failNext", method: "pane.get", code: "internal_error", message: "boom" });
    const unsure = await takeover("pane.ctl:g1", taker.env);
    expect(unsure.exitCode).not.toBe(0);
    expect(Number((await leaseRow("pane.ctl"))?.generation)).toBe(1);
    const gone = await takeover("pane.ctl:g1", taker.env);
    expect(gone.exitCode, gone.stderr).toBe(0);
    world.rememberSecrets();
    expect(gone.json()).toMatchObject({ lease_ref: "pane.ctl:g2", predecessor: { evidence: "pane_gone" } });
  });

  test("a lease whose bound process ended is taken over once expired (process_gone), not before", async () => {
    const holder = await agentPane("proc-holder", "proc.ctl");
    // `; exit $?` keeps sh from exec'ing the command, so sh itself is the bound process; it exits right after.
    const script = 'AGENT_CONTROL_CONTROLLER_PID=$$ "$0" controller acquire "$@" --json; exit $?';
    const shell = await execa("sh", ["-c", script, binPath("herdr-lease-cli"), ...AUTHORITY], {
      env: { ...world.env, ...holder.env, AGENT_CONTROL_CONTROLLER_PID: "", AGENT_COMPUTER_FORM: binaryForm },
      reject: false,
    });
    expect(shell.exitCode, String(shell.stderr)).toBe(0);
    world.record(String(shell.stdout), String(shell.stderr));
    world.rememberSecrets();
    const taker = await agentPane("proc-taker", "proc.ctl");
    const unexpired = await takeover("proc.ctl:g1", taker.env);
    expect(error(unexpired.stderr)).toMatchObject({ code: "CONTROLLER_HELD" });
    await expireAll();
    const won = await takeover("proc.ctl:g1", taker.env);
    expect(won.exitCode, won.stderr).toBe(0);
    world.rememberSecrets();
    expect(won.json()).toMatchObject({ predecessor: { lease_ref: "proc.ctl:g1", evidence: "process_gone" } });
  });

  test("a holder bound under another Herdr server is not gone from here, even expired with its pane id unknown here", async () => {
    const holder = await agentPane("srv-holder", "srv.ctl");
    const acquired = await world.run("herdr-lease-cli", ["controller", "acquire", ...AUTHORITY, "--json"], holder.env);
    expect(acquired.exitCode, acquired.stderr).toBe(0);
    world.rememberSecrets();
    await expireAll();
    const other = await startFakeHerdr({ timing: FAST_TIMING });
    try {
      const taker = await other.script({ op: "createAgent", kind: "claude", cwd: world.fake.dir, name: "srv-taker" });
      const env = { HERDR_SOCKET_PATH: other.socketPath, HERDR_PANE_ID: taker.pane_id, AGENT_CONTROL_CONTROLLER_ID: "srv.ctl" };
      const refused = await takeover("srv.ctl:g1", env);
      expect(error(refused.stderr)).toMatchObject({ code: "CONTROLLER_HELD" });
      expect(error(refused.stderr).message).toContain(world.fake.socketPath);
      expect(Number((await leaseRow("srv.ctl"))?.generation)).toBe(1);
    } finally {
      await other.stop();
    }
  });

  test("no lease id or fence token appeared in any output", async () => {
    expect(await world.leakedSecrets()).toEqual([]);
  });
});
