// Lease inventory, reconcile and the reviewer sweep through bin/: inventory tells leased from unleased agents
// without a credential; reconcile --apply ends a lease as lost only on Herdr's pane_not_found for its exact pane (or
// no agent in it) and only then releases its writer claim and receipts; the sweep --apply closes exactly the finished
// reviewers its dry run listed. Both are dry runs without --apply.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addWorktree, headOf, makeRepo, statusSha256 } from "../helpers/git-repos.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";

interface Lease {
  lease_id: string;
  pane_id: string;
}
interface Reconciled {
  leases: {
    lease_id: string;
    agent_name: string;
    outcome: string;
    evidence: string;
    released: { writer_claim: boolean; receipts: string[] };
  }[];
}
interface Swept {
  reviewers: { agent_name: string; outcome: string; reason: string }[];
}

let world: HerdrWorld;
let repo: string;
const error = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; conflict?: string } }).error;
const paneExists = async (paneId: string) => (await world.fake.state()).panes.some((pane) => pane.paneId === paneId);
const byName = <T extends { agent_name: string }>(rows: T[]) => Object.fromEntries(rows.map((row) => [row.agent_name, row]));

const reviewer = async (name: string): Promise<Lease> => {
  const lease = await world.json<Lease>("herdr-lease-cli", [
    "reviewer",
    "start",
    ...["--name", name, "--kind", "claude", "--cwd", world.fake.dir, "--purpose", "review"],
  ]);
  await world.fake.script({ op: "onPrompt", paneId: lease.pane_id, defaultTurn: "normal" });
  return lease;
};

const writer = async (name: string, worktree: string) =>
  world.run("herdr-lease-cli", [
    "writer",
    "start",
    ...["--name", name, "--kind", "codex", "--purpose", "ticket 7", "--ticket-ref", "acme/api#7"],
    ...["--authority-ref", "acme/api#7", "--authority-sha256", SHA_A, "--worktree", worktree, "--branch", "feat-r"],
    ...["--base-commit", await headOf(repo), "--expected-head", await headOf(worktree)],
    ...["--expected-status-sha256", await statusSha256(worktree), "--owned-scope", "src", "--blocked-scope", "migrations"],
    ...["--protected-branch", "main", "--json"],
  ]);

/** Leaves a pending receipt to the reviewer: the ask stops waiting before the agent's long turn ends. */
const pendingAsk = async (lease: Lease, name: string): Promise<string> => {
  const slow = [
    { afterMs: 30, state: "working" as const },
    { afterMs: 60_000, state: "idle" as const },
  ];
  await world.fake.script({ op: "onPrompt", paneId: lease.pane_id, turns: [slow] });
  const asked = await world.run("herdr-agent-control", ["ask", name, "--timeout-ms", "800", "--json", "--", "look"]);
  const out = asked.json<{ pending_receipts: string[] }>();
  expect(out.pending_receipts).toHaveLength(1);
  return out.pending_receipts[0] as string;
};

beforeAll(async () => {
  world = await startHerdrWorld();
  await world.acquire();
  repo = await makeRepo();
});
afterAll(async () => {
  await world?.stop();
});

describe("inventory", () => {
  test("lists every Herdr agent as leased (controller, reviewer) or unleased, with no controller context or credential", async () => {
    const rev = await reviewer("rev-inv");
    const stray = await world.fake.script({ op: "createAgent", kind: "codex", cwd: world.fake.dir, name: "stray" });
    const run = await world.run("herdr-lease-cli", ["inventory", "--json"], {
      AGENT_CONTROL_CONTROLLER_ID: "",
      HERDR_PANE_ID: "",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const inv = run.json<{
      agents: {
        pane_id: string;
        name: string;
        leased: boolean;
        held_by: { kind: string; controller_id: string; lease: string }[];
      }[];
      leased: number;
      unleased: number;
    }>();
    const agents = Object.fromEntries(inv.agents.map((agent) => [agent.pane_id, agent]));
    expect(agents[world.coordinator.pane_id]).toMatchObject({
      leased: true,
      held_by: [{ kind: "controller", controller_id: "proj.ctl", lease: "proj.ctl:g1" }],
    });
    expect(agents[rev.pane_id]).toMatchObject({ leased: true, held_by: [{ kind: "reviewer", lease: rev.lease_id }] });
    expect(agents[stray.pane_id]).toMatchObject({ name: "stray", leased: false, held_by: [] });
    expect([inv.leased, inv.unleased]).toEqual([2, 1]);
  });
});

describe("reconcile", () => {
  test("ends as lost only leases whose exact pane Herdr answers pane_not_found, then releases claim and receipts", async () => {
    const live = await reviewer("rev-live");
    const gone = await reviewer("rev-gone");
    const receipt = await pendingAsk(gone, "rev-gone");
    const worktree = await addWorktree(repo, "wt-r", "feat-r");
    const started = await writer("w-gone", worktree);
    expect(started.exitCode, started.stderr).toBe(0);
    const w = started.json<Lease>();
    for (const paneId of [gone.pane_id, w.pane_id]) await world.fake.script({ op: "closePane", paneId });

    // A Herdr that fails to answer is no evidence: every lease is unknown and nothing changes.
    // (One failure per held lease: rev-inv, rev-live, rev-gone, w-gone.)
    await world.fake.script({ op: "failNext", method: "pane.get", code: "internal_error", message: "boom", count: 4 });
    const blind = await world.json<Reconciled>("herdr-lease-cli", ["reconcile"]);
    expect(blind.leases.map((lease) => lease.outcome)).toEqual(["unknown", "unknown", "unknown", "unknown"]);

    const dry = byName((await world.json<Reconciled>("herdr-lease-cli", ["reconcile", "--dry-run"])).leases);
    expect(dry["rev-gone"]?.outcome).toBe("would_lose");
    expect(dry["w-gone"]?.outcome).toBe("would_lose");
    expect(dry["rev-live"]?.outcome).toBe("kept");
    // Still held: the branch is not free for another writer yet.
    const blocked = await writer("w-next", worktree);
    expect(error(blocked.stderr)).toMatchObject({ code: "SCOPE_CONFLICT", conflict: "branch" });

    // Without --apply reconcile is a dry run: it reports, and the branch stays held.
    const plain = byName((await world.json<Reconciled & { dry_run: boolean }>("herdr-lease-cli", ["reconcile"])).leases);
    expect(plain["w-gone"]?.outcome).toBe("would_lose");
    expect(error((await writer("w-next", worktree)).stderr)).toMatchObject({ code: "SCOPE_CONFLICT", conflict: "branch" });
    const contradiction = await world.run("herdr-lease-cli", ["reconcile", "--apply", "--dry-run", "--json"]);
    expect(error(contradiction.stderr).code).toBe("INVALID_INPUT");

    const done = byName((await world.json<Reconciled>("herdr-lease-cli", ["reconcile", "--apply"])).leases);
    expect(done["rev-gone"]).toMatchObject({ outcome: "lost", released: { writer_claim: false, receipts: [receipt] } });
    expect(done["rev-gone"]?.evidence).toContain(`pane_not_found for pane ${gone.pane_id}`);
    expect(done["w-gone"]).toMatchObject({ outcome: "lost", released: { writer_claim: true, receipts: [] } });
    expect(done["rev-live"]?.outcome).toBe("kept");
    expect(await paneExists(live.pane_id)).toBe(true);
    const receipts = await world.json<{ receipts: { receipt: string; state: string; failure: string }[] }>(
      "herdr-agent-control",
      ["receipts"],
    );
    expect(receipts.receipts.find((r) => r.receipt === receipt)).toMatchObject({ state: "failed", failure: "identity_changed" });

    // Idempotent: nothing left to end; and the released branch admits a new writer.
    const again = byName((await world.json<Reconciled>("herdr-lease-cli", ["reconcile", "--apply"])).leases);
    expect(again["rev-gone"]).toBeUndefined();
    expect(again["w-gone"]).toBeUndefined();
    const next = await writer("w-next", worktree);
    expect(next.exitCode, next.stderr).toBe(0);
  });
});

describe("reviewer sweep", () => {
  test("the dry run lists exactly the finished reviewers; the sweep closes those and preserves the rest", async () => {
    const finished = await reviewer("rev-done");
    const ask = await world.run("herdr-agent-control", ["ask", "rev-done", "--json", "--", "review it"]);
    expect(ask.json<{ results: { state: string }[] }>().results[0]?.state).toBe("completed");
    const working = await reviewer("rev-busy");
    await world.fake.script({ op: "setState", paneId: working.pane_id, status: "working" });
    const blocked = await reviewer("rev-blocked");
    await world.fake.script({ op: "setState", paneId: blocked.pane_id, status: "blocked" });
    const waiting = await reviewer("rev-waiting");
    await pendingAsk(waiting, "rev-waiting");

    const dry = await world.json<Swept>("herdr-lease-cli", ["reviewer", "sweep", "--dry-run"]);
    const wouldClose = dry.reviewers.filter((r) => r.outcome === "would_close").map((r) => r.agent_name);
    expect(wouldClose).toContain("rev-done");
    for (const name of ["rev-busy", "rev-blocked", "rev-waiting"]) expect(wouldClose).not.toContain(name);
    expect(await paneExists(finished.pane_id)).toBe(true);

    // Without --apply the sweep is a dry run too.
    const plain = await world.json<Swept>("herdr-lease-cli", ["reviewer", "sweep"]);
    expect(plain.reviewers.filter((r) => r.outcome === "would_close").map((r) => r.agent_name)).toContain("rev-done");
    expect(await paneExists(finished.pane_id)).toBe(true);

    const swept = await world.json<Swept>("herdr-lease-cli", ["reviewer", "sweep", "--apply"]);
    const closed = swept.reviewers.filter((r) => r.outcome === "closed").map((r) => r.agent_name);
    expect(closed.sort()).toEqual(wouldClose.sort());
    const kept = byName(swept.reviewers);
    expect(kept["rev-busy"]).toMatchObject({ outcome: "preserved", reason: "it is working, not idle or done" });
    expect(kept["rev-blocked"]).toMatchObject({ outcome: "preserved", reason: "it is blocked, not idle or done" });
    expect(kept["rev-waiting"]?.reason).toMatch(/^receipt herdr-receipt-v1\.\S+ is still pending$/);
    expect(await paneExists(finished.pane_id)).toBe(false);
    for (const lease of [working, blocked, waiting]) expect(await paneExists(lease.pane_id)).toBe(true);
  });

  test("no lease id of the controller or fence token appeared in any output", async () => {
    expect(await world.leakedSecrets()).toEqual([]);
  });
});
