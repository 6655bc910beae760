// herdr-lease-cli reviewer/adopt/wait-any through bin/: a new tab's busy shell is retried only within the
// bounded window and only for agent_pane_busy; closes happen only through the lease, at the cursor last seen.
import { mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { HandoffOutput } from "../../app/agent_computer/src/domain/herdr/handoff-results.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld, turn } from "../helpers/herdr-world.ts";

interface Lease {
  lease_id: string;
  pane_id: string;
  state: string;
}

let world: HerdrWorld;
const code = (stderr: string): string => (JSON.parse(stderr) as { error: { code: string } }).error.code;
const reviewer = (name: string, extra: string[] = [], rest: string[] = []) =>
  world.run("herdr-lease-cli", [
    "reviewer",
    "start",
    "--name",
    name,
    "--kind",
    rest.length > 0 && extra.includes("codex") ? "codex" : "claude",
    "--cwd",
    world.fake.dir,
    "--purpose",
    "review",
    "--json",
    ...extra.filter((word) => word !== "codex"),
    ...(rest.length > 0 ? ["--", ...rest] : []),
  ]);
const startRequests = async () =>
  ((await world.fake.requests()) as Array<{ method: string; params: Record<string, unknown> }>).filter(
    (r) => r.method === "agent.start",
  );
const seqOf = async (paneId: string): Promise<number> =>
  (await world.fake.state()).panes.find((pane) => pane.paneId === paneId)?.agent?.stateChangeSeq ?? -1;
const paneExists = async (paneId: string): Promise<boolean> =>
  (await world.fake.state()).panes.some((pane) => pane.paneId === paneId);

beforeAll(async () => {
  // Every new pane's shell answers agent_pane_busy for its first 1.2 s, as a freshly created Herdr tab can.
  world = await startHerdrWorld({ timing: { shellReadyMs: 1200 } });
  await world.acquire();
});
afterAll(async () => {
  await world?.stop();
});

describe("reviewer start", () => {
  test("agent_pane_busy on the new pane is retried within the window; claude gets model and effort as native args", async () => {
    const r = await reviewer("rev-a", ["--busy-window-ms", "5000"], ["--model", "opus", "--effort", "high"]);
    expect(r.exitCode).toBe(0);
    expect(r.json<Lease>().state).toBe("active");
    const starts = (await startRequests()).filter((s) => s.params.name === "rev-a");
    expect(starts.length).toBeGreaterThan(1);
    expect(starts.at(-1)?.params.args).toEqual(["--model", "opus", "--effort", "high"]);
  });

  test("busy beyond the window fails, and only the pane it created is closed", async () => {
    // A world of its own whose new panes stay busy for a minute: with the suite's 1.2 s, a CLI slowed down by a
    // loaded machine could make its first start attempt after the shell was ready, and succeed.
    const shared = world;
    world = await startHerdrWorld({ timing: { shellReadyMs: 60_000 } });
    try {
      await world.acquire();
      const panesBefore = (await world.fake.state()).panes.length;
      const r = await reviewer("rev-slow", ["--busy-window-ms", "150"]);
      expect(r.exitCode).toBe(4);
      expect(code(r.stderr)).toBe("HERDR_REFUSED");
      expect(r.stderr).toContain("agent_pane_busy");
      expect((await world.fake.state()).panes.length).toBe(panesBefore);
      const status = await world.json<{ ended_leases: number }>("herdr-agent-control", ["status"]);
      expect(status.ended_leases).toBeGreaterThan(0);
    } finally {
      await world.stop();
      world = shared;
    }
  });

  test("any other start failure is not retried and cleans up its pane", async () => {
    await world.fake.script({
      op: "failNext",
      method: "agent.start",
      code: "agent_start_failed",
      message: "agent process exited",
    });
    const r = await reviewer("rev-fail", ["--busy-window-ms", "5000"]);
    expect(code(r.stderr)).toBe("HERDR_REFUSED");
    expect(r.stderr).toContain("agent_start_failed");
    expect((await startRequests()).filter((s) => s.params.name === "rev-fail").length).toBe(1);
  });

  test("a --cwd with a trailing slash, through a symlink, names the directory Herdr reports: the lease becomes active", async () => {
    const real = realpathSync(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "ticket-wt-")));
    const link = join(realpathSync(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "links-"))), "pr42");
    symlinkSync(real, link);
    const r = await world.run("herdr-lease-cli", [
      ...["reviewer", "start", "--name", "rev-link", "--kind", "claude", "--cwd", `${link}/`],
      ...["--purpose", "review", "--busy-window-ms", "5000", "--json"],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const lease = r.json<Lease & { cwd: string }>();
    expect(lease).toMatchObject({ state: "active", cwd: real });
    // Herdr reports the shell's own directory: resolved, no trailing slash.
    expect((await world.fake.state()).panes.find((pane) => pane.paneId === lease.pane_id)?.cwd).toBe(real);
  });

  test("native args are claude-only and limited to --model/--effort; nothing is created when refused", async () => {
    const panes = (await world.fake.state()).panes.length;
    expect((await reviewer("rev-x", ["codex"], ["--model", "o3"])).exitCode).toBe(2);
    const sneaky = await reviewer("rev-y", [], ["--dangerously-skip-permissions"]);
    expect(sneaky.exitCode).toBe(2);
    expect((await world.fake.state()).panes.length).toBe(panes);
  });
});

describe("reviewer close", () => {
  test("only at the cursor last seen, only when settled, never with an outstanding receipt; closes only its pane", async () => {
    const lease = (await reviewer("rev-b", ["--busy-window-ms", "5000"])).json<Lease>();
    await world.fake.script({ op: "onPrompt", paneId: lease.pane_id, turns: [turn("review done", "idle", 1500)] });
    const pending = (
      await world.run("herdr-agent-control", ["ask", "rev-b", "--timeout-ms", "300", "--json", "--", "review", "it"])
    ).json<HandoffOutput>();
    const close = (seq: number) =>
      world.run("herdr-lease-cli", ["reviewer", "close", "--lease-id", lease.lease_id, "--expected-seq", String(seq), "--json"]);
    expect(code((await close(await seqOf(lease.pane_id))).stderr)).toBe("RECEIPT_OUTSTANDING");
    const collected = await world.json<HandoffOutput>("herdr-agent-control", [
      "collect",
      "--receipt",
      pending.pending_receipts[0] as string,
    ]);
    const seq = collected.results[0]?.state_change_seq as number;
    expect(code((await close(seq - 1)).stderr)).toBe("CURSOR_MOVED");
    await world.fake.script({ op: "setState", paneId: lease.pane_id, status: "working" });
    expect(code((await close(await seqOf(lease.pane_id))).stderr)).toBe("AGENT_NOT_SETTLED");
    await world.fake.script({ op: "setState", paneId: lease.pane_id, status: "done" });
    const closed = await close(await seqOf(lease.pane_id));
    expect(closed.exitCode).toBe(0);
    expect(closed.json<{ lease: Lease; capture_sha256: string }>()).toMatchObject({ lease: { state: "closed" } });
    expect(await paneExists(lease.pane_id)).toBe(false);
    expect(await paneExists(world.coordinator.pane_id)).toBe(true);
    expect(code((await close(seq)).stderr)).toBe("CONFLICT");
  });
});

describe("adopt", () => {
  test("a cleanup-only lease on the exact legacy agent: no requests, closed with a checkpoint", async () => {
    const legacy = await world.fake.script({ op: "createAgent", kind: "codex", cwd: "/srv/old", name: "legacy" });
    const adopt = (cwd: string, pane = legacy.pane_id) =>
      world.run("herdr-lease-cli", [
        "adopt",
        "--target",
        "legacy",
        "--expected-pane-id",
        pane,
        "--expected-name",
        "legacy",
        "--expected-kind",
        "codex",
        "--expected-cwd",
        cwd,
        "--expected-seq",
        String(legacy.state_change_seq),
        "--authority-ref",
        "acme/api#5",
        "--authority-sha256",
        SHA_A,
        "--purpose",
        "stale worker",
        "--json",
      ]);
    expect(code((await adopt("/srv/other")).stderr)).toBe("IDENTITY_CHANGED");
    expect(code((await adopt("/srv/old", world.coordinator.pane_id)).stderr)).toBe("CONFLICT");
    const lease = (await adopt("/srv/old")).json<Lease>();
    expect(lease.state).toBe("active");
    expect(code((await adopt("/srv/old")).stderr)).toBe("CONFLICT");
    const asked = await world.run("herdr-agent-control", ["ask", "legacy", "--json", "--", "hello"]);
    expect(code(asked.stderr)).toBe("TARGET_NOT_LEASED");
    const closed = await world.json<{ lease: Lease }>("herdr-lease-cli", [
      "adopted",
      "close",
      "--lease-id",
      lease.lease_id,
      "--expected-seq",
      String(legacy.state_change_seq),
      "--checkpoint-ref",
      "acme/api#5-c1",
      "--checkpoint-sha256",
      SHA_A,
    ]);
    expect(closed.lease.state).toBe("closed");
    expect(await paneExists(legacy.pane_id)).toBe(false);
  });
});

describe("adopt through another spelling of the directory", () => {
  test("--expected-cwd with a trailing slash or through a symlink matches the resolved cwd Herdr reports", async () => {
    const real = realpathSync(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "legacy-wt-")));
    const link = join(realpathSync(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "links-"))), "old");
    symlinkSync(real, link);
    const legacy = await world.fake.script({ op: "createAgent", kind: "codex", cwd: `${real}/`, name: "legacy-two" });
    expect(legacy.cwd).toBe(real);
    const r = await world.run("herdr-lease-cli", [
      ...["adopt", "--target", "legacy-two", "--expected-pane-id", legacy.pane_id, "--expected-name", "legacy-two"],
      ...["--expected-kind", "codex", "--expected-cwd", `${link}/`, "--expected-seq", String(legacy.state_change_seq)],
      ...["--authority-ref", "acme/api#6", "--authority-sha256", SHA_A, "--purpose", "stale worker", "--json"],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<Lease & { cwd: string }>()).toMatchObject({ state: "active", cwd: real });
  });
});

describe("wait-any", () => {
  test("returns the first worker to settle after its own cursor, with its output; an old settled state does not count", async () => {
    const one = await world.fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "w-one" });
    const two = await world.fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "w-two" });
    const waiting = world.run("herdr-lease-cli", [
      "wait-any",
      "--worker",
      "w-one",
      "--worker",
      "w-two",
      "--after-seq",
      `w-one=${one.state_change_seq}`,
      "--after-seq",
      `w-two=${two.state_change_seq}`,
      "--timeout-ms",
      "20000",
      "--json",
    ]);
    await Bun.sleep(800);
    await world.fake.script({ op: "setState", paneId: two.pane_id, status: "working" });
    await world.fake.script({ op: "setOutput", paneId: two.pane_id, text: "two finished" });
    await world.fake.script({ op: "setState", paneId: two.pane_id, status: "done" });
    const r = await waiting;
    expect(r.exitCode).toBe(0);
    expect(r.json()).toMatchObject({ target: "w-two", status: "done", output: "two finished" });
    expect(r.json<{ state_change_seq: number }>().state_change_seq).toBeGreaterThan(two.state_change_seq);
    const immediate = await world.json("herdr-lease-cli", ["wait-any", "--worker", "w-one", "--timeout-ms", "5000"]);
    expect(immediate).toMatchObject({ target: "w-one", status: "idle" });
    const none = await world.run("herdr-lease-cli", [
      "wait-any",
      "--worker",
      "w-one",
      "--after-seq",
      `w-one=${one.state_change_seq}`,
      "--timeout-ms",
      "600",
    ]);
    expect(none.exitCode).toBe(7);
  });
});

test("nothing in this suite's output, Herdr requests or state files holds a credential", async () => {
  expect(await world.leakedSecrets()).toEqual([]);
});
