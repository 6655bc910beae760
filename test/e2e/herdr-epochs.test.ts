// A Herdr server handoff under a running coordinator, black-box through bin/ and driven from outside through the
// double's own `herdr fake handoff|restart` (FAKE_HERDR_CONTROL=1): the new server keeps pane ids but gives every
// pane a new terminal id, restarts state_change_seq at 0, and shows each agent missing and then `unknown` before
// its real status returns. Leases, the controller binding, receipts and wait-any carry on; a cold restart leaves
// the panes with dead agents, which reconcile ends.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { HandoffOutput } from "../../app/agent_computer/src/domain/herdr/handoff-results.ts";
import { runHerdrCli } from "../fixtures/fake-herdr/run-cli.ts";
import { addWorktree, headOf, makeRepo, statusSha256 } from "../helpers/git-repos.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";

let world: HerdrWorld;
beforeEach(async () => {
  world = await startHerdrWorld();
  await world.acquire();
});
afterEach(async () => {
  await world?.stop();
});

const AUTHORITY = ["--authority-ref", "acme/api#7", "--authority-sha256", SHA_A];
const code = (stderr: string): string => (JSON.parse(stderr) as { error: { code: string } }).error.code;

/** What any script can do to a running Herdr double: hand it off (or restart it) from outside the test process. */
const CONTROL_ENV: Record<string, string> = { FAKE_HERDR_CONTROL: "1" };
const fakeHerdr = async (args: string[]): Promise<void> => {
  const run = await runHerdrCli({ env: { ...world.fake.env, ...CONTROL_ENV } }, ["fake", ...args]);
  expect(run.exitCode, run.stderr).toBe(0);
};
const handoff = () => fakeHerdr(["handoff", "--gap-ms", "300", "--absent-ms", "400", "--unknown-ms", "1500"]);

const startReviewer = async (name: string) =>
  world.json<{ lease_id: string; pane_id: string }>("herdr-lease-cli", [
    "reviewer",
    "start",
    "--name",
    name,
    "--kind",
    "claude",
    "--cwd",
    world.fake.dir,
    "--purpose",
    "review",
  ]);
const receiptsOf = async () =>
  (
    await world.json<{ receipts: Array<{ receipt: string; state: string; settled_seq: number | null }> }>("herdr-agent-control", [
      "receipts",
    ])
  ).receipts;
const agentSeq = async (paneId: string): Promise<number> =>
  (await world.fake.state()).panes.find((pane) => pane.paneId === paneId)?.agent?.stateChangeSeq ?? -1;

describe("a live handoff under a running coordinator", () => {
  test("a pending receipt is collected exactly once afterwards, and the reviewer's lease still closes", async () => {
    const lease = await startReviewer("rev-h");
    await world.fake.script({ op: "onPrompt", paneId: lease.pane_id, turns: [[{ afterMs: 30, state: "working" }]] });
    const asked = await world.run("herdr-agent-control", ["ask", "rev-h", "--timeout-ms", "400", "--json", "--", "review it"]);
    const out = asked.json<HandoffOutput>();
    expect(out.results[0]).toMatchObject({ state: "pending", error: "timeout" });
    const token = out.pending_receipts[0] as string;
    const seqBefore = await agentSeq(lease.pane_id);
    await handoff();
    // The turn ends under the new server, whose sequence started again below the receipt's cursor.
    await world.fake.script({ op: "appendOutput", paneId: lease.pane_id, text: "review: looks fine" });
    await world.fake.script({ op: "setState", paneId: lease.pane_id, status: "idle" });
    const collected = await world.run("herdr-agent-control", ["collect", "--receipt", token, "--timeout-ms", "20000", "--json"]);
    expect(collected.exitCode, collected.stderr).toBe(0);
    const result = collected.json<HandoffOutput>().results[0];
    expect(result).toMatchObject({ state: "completed", output: expect.stringContaining("review: looks fine") });
    expect(result?.state_change_seq).toBeLessThan(seqBefore);
    const rows = (await receiptsOf()).filter((row) => row.receipt === token);
    expect(rows).toEqual([expect.objectContaining({ state: "completed", settled_seq: result?.state_change_seq })]);
    // Collected once: a second collect replays the same settled result, it is not a second turn.
    const again = await world.json<HandoffOutput>("herdr-agent-control", ["collect", "--receipt", token]);
    expect(again.results[0]).toMatchObject({ state: "completed", state_change_seq: result?.state_change_seq });
    const seq = await agentSeq(lease.pane_id);
    const closed = await world.run("herdr-lease-cli", [
      "reviewer",
      "close",
      "--lease-id",
      lease.lease_id,
      "--expected-seq",
      String(seq),
      "--json",
    ]);
    expect(closed.exitCode, closed.stderr).toBe(0);
    expect(closed.json<{ lease: { state: string } }>().lease.state).toBe("closed");
  });

  test("a collect in flight rides the handoff: cut, absent, unknown at seq 0, then completes at the new server's cursor", async () => {
    const lease = await startReviewer("rev-f");
    await world.fake.script({
      op: "onPrompt",
      paneId: lease.pane_id,
      turns: [
        [
          { afterMs: 30, state: "working" },
          { afterMs: 2500, output: "finished during the handoff", state: "idle" },
        ],
      ],
    });
    const out = (
      await world.run("herdr-agent-control", ["ask", "rev-f", "--timeout-ms", "300", "--json", "--", "long one"])
    ).json<HandoffOutput>();
    const token = out.pending_receipts[0] as string;
    const collecting = world.run("herdr-agent-control", ["collect", "--receipt", token, "--timeout-ms", "20000", "--json"]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await handoff();
    const collected = await collecting;
    expect(collected.exitCode, collected.stderr).toBe(0);
    expect(collected.json<HandoffOutput>().results[0]).toMatchObject({
      state: "completed",
      output: expect.stringContaining("finished during the handoff"),
    });
  });

  test("the controller binding holds: status, resume and a new request work after the handoff", async () => {
    const lease = await startReviewer("rev-c");
    await handoff();
    const resumed = await world.run("herdr-lease-cli", ["controller", "resume", ...AUTHORITY, "--json"]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    world.rememberSecrets();
    await world.fake.script({
      op: "onPrompt",
      paneId: lease.pane_id,
      turns: [
        [
          { afterMs: 30, state: "working" },
          { afterMs: 150, output: "after the handoff", state: "idle" },
        ],
      ],
    });
    // The reviewer may still be re-detected: its lease identity is pane, name, kind and cwd, not the terminal.
    let asked = await world.run("herdr-agent-control", ["ask", "rev-c", "--json", "--", "again"]);
    for (let i = 0; i < 40 && asked.exitCode !== 0 && code(asked.stderr) === "AGENT_NOT_SETTLED"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      asked = await world.run("herdr-agent-control", ["ask", "rev-c", "--json", "--", "again"]);
    }
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect(asked.json<HandoffOutput>().results[0]).toMatchObject({
      state: "completed",
      output: expect.stringContaining("after the handoff"),
    });
    expect(await world.leakedSecrets()).toEqual([]);
  });
});

describe("wait-any across a handoff", () => {
  test("a wait in flight answers the turn that ends under the new server, once", async () => {
    const lease = await startReviewer("rev-w");
    await world.fake.script({ op: "setState", paneId: lease.pane_id, status: "working" });
    const cursor = await agentSeq(lease.pane_id);
    const waiting = world.run("herdr-lease-cli", [
      "wait-any",
      "--worker",
      "rev-w",
      "--after-seq",
      `rev-w=${cursor}`,
      "--timeout-ms",
      "20000",
      "--json",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await handoff();
    await world.fake.script({ op: "setState", paneId: lease.pane_id, status: "done" });
    const answered = await waiting;
    expect(answered.exitCode, answered.stderr).toBe(0);
    expect(answered.json<{ status: string; state_change_seq: number }>()).toMatchObject({ status: "done" });
  });

  test("a settled worker's restored status is not a new turn; a cursor from the old server is refused with the one to use", async () => {
    const lease = await startReviewer("rev-s");
    // A few finished turns, so its cursor is well above anything the new server numbers soon.
    for (let i = 0; i < 4; i += 1) {
      await world.fake.script({ op: "setState", paneId: lease.pane_id, status: "working" });
      await world.fake.script({ op: "setState", paneId: lease.pane_id, status: "idle" });
    }
    const cursor = await agentSeq(lease.pane_id);
    const waiting = world.run("herdr-lease-cli", [
      "wait-any",
      "--worker",
      "rev-s",
      "--after-seq",
      `rev-s=${cursor}`,
      "--timeout-ms",
      "4000",
      "--json",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await handoff();
    const answered = await waiting;
    expect(answered.exitCode, answered.stdout).toBe(7);
    expect(code(answered.stderr)).toBe("TIMEOUT");
    const stale = await world.run("herdr-lease-cli", [
      "wait-any",
      "--worker",
      "rev-s",
      "--after-seq",
      `rev-s=${cursor}`,
      "--json",
    ]);
    expect(code(stale.stderr)).toBe("CONFLICT");
    expect(JSON.parse(stale.stderr).error.message).toMatch(/--after-seq rev-s=\d+ is above/);
  });
});

describe("a cold restart of Herdr", () => {
  const writer = async (repo: string, name: string, worktree: string) =>
    world.run("herdr-lease-cli", [
      "writer",
      "start",
      ...["--name", name, "--kind", "codex", "--purpose", "ticket 7", "--ticket-ref", "acme/api#7"],
      ...["--authority-ref", "acme/api#7", "--authority-sha256", SHA_A, "--worktree", worktree, "--branch", "feat-c"],
      ...["--base-commit", await headOf(repo), "--expected-head", await headOf(worktree)],
      ...["--expected-status-sha256", await statusSha256(worktree), "--owned-scope", "src", "--blocked-scope", "migrations"],
      ...["--protected-branch", "main", "--json"],
    ]);
  type Reconciled = {
    dry_run: boolean;
    leases: Array<{ agent_name: string; outcome: string; evidence: string; released: { writer_claim: boolean } }>;
  };

  test("reconcile ends the leases whose pane came back without its agent, and frees the writer's branch", async () => {
    const repo = await makeRepo();
    const worktree = await addWorktree(repo, "wt-c", "feat-c");
    const rev = await startReviewer("rev-cold");
    const started = await writer(repo, "w-cold", worktree);
    expect(started.exitCode, started.stderr).toBe(0);
    await fakeHerdr(["restart", "--gap-ms", "200"]);
    // The coordinator comes back in its own pane (same name, kind, directory; the same process here).
    const revived = await runHerdrCli(world.fake, [
      "agent",
      "start",
      "coord",
      "--kind",
      "claude",
      "--pane",
      world.coordinator.pane_id,
    ]);
    expect(revived.exitCode, revived.stderr).toBe(0);
    const plain = await world.json<Reconciled>("herdr-lease-cli", ["reconcile"]);
    expect(plain.dry_run).toBe(true);
    const would = Object.fromEntries(plain.leases.map((l) => [l.agent_name, l]));
    expect(would["rev-cold"]).toMatchObject({ outcome: "would_lose" });
    expect(would["rev-cold"]?.evidence).toContain(`pane ${rev.pane_id} exists but runs no agent`);
    expect(would["w-cold"]?.outcome).toBe("would_lose");
    // The sweep leaves them to reconcile, and says so.
    const swept = await world.json<{ reviewers: Array<{ agent_name: string; outcome: string; reason: string }> }>(
      "herdr-lease-cli",
      ["reviewer", "sweep"],
    );
    expect(swept.reviewers.find((r) => r.agent_name === "rev-cold")).toMatchObject({
      outcome: "preserved",
      reason: expect.stringContaining("reconcile --apply ends such leases as lost"),
    });
    const applied = await world.json<Reconciled>("herdr-lease-cli", ["reconcile", "--apply"]);
    const done = Object.fromEntries(applied.leases.map((l) => [l.agent_name, l]));
    expect(done["rev-cold"]?.outcome).toBe("lost");
    expect(done["w-cold"]).toMatchObject({ outcome: "lost", released: { writer_claim: true } });
    const next = await writer(repo, "w-next", worktree);
    expect(next.exitCode, next.stderr).toBe(0);
  }, 180_000);
});
