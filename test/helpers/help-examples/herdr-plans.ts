// Plans for the --help examples of herdr-agent-control, herdr-lease-cli and herdr-inspect-cli (see plan.ts): each runs inside the Herdr
// double as the coordinator. Paths such as /srv/wt/pr42 stand for directories made here; cursors such as
// rev-a=118 for 0 (any state change counts), since the double's sequence starts afresh.
import { join } from "node:path";
import type { CommandPlan } from "./plan.ts";
import type { World } from "./world.ts";

const ISSUE = "echo 'issue 7: retry the flaky call' > issue7.md";
const acquire = [
  ISSUE,
  "herdr-lease-cli controller acquire --authority-ref acme/api#7 --authority-sha256 $(sha256sum < issue7.md | cut -c1-64)",
];
const EXAMPLE_RECEIPT = "herdr-receipt-v1.0b6e4d9e-1f1a-4c35-9d0e-5d7f0f3c2a11";

interface Lease {
  lease_id: string;
  pane_id: string;
}

const fake = (world: World) => {
  if (!world.herdr) throw new Error("this plan needs herdr: true");
  return world.herdr.fake;
};

/** A reviewer lease whose agent answers every prompt with a normal turn. */
const reviewer = async (world: World, name: string): Promise<Lease> => {
  const lease = await world.json<Lease>(
    `herdr-lease-cli reviewer start --name ${name} --kind claude --cwd "$PWD" --purpose review --json`,
  );
  await fake(world).script({ op: "onPrompt", paneId: lease.pane_id, defaultTurn: "normal" });
  return lease;
};

const reviewers =
  (...names: string[]) =>
  async (world: World) => {
    for (const name of names) await reviewer(world, name);
  };

const receipts = async (world: World): Promise<string[]> =>
  (await world.json<{ receipts: { receipt: string }[] }>("herdr-agent-control receipts --json")).receipts.map((r) => r.receipt);

/** The live cursor of a leased agent, as status reports it. */
const liveSeq = async (world: World, leaseId: string): Promise<string> => {
  const { leases } = await world.json<{ leases: { lease_id: string; live_seq?: number }[] }>("herdr-agent-control status --json");
  return String(leases.find((l) => l.lease_id === leaseId)?.live_seq ?? -1);
};

const writerRepo = [
  "git init -q -b main repo && mkdir -p repo/src && echo 1 > repo/src/a.ts && git -C repo add . && git -C repo commit -qm first",
  "git -C repo worktree add -q -b t7-retry ../t7",
];
/** The writer repository with a verification recipe committed at its base commit. */
const verifyRepo = [
  "git init -q -b main repo && mkdir -p repo/src repo/.agent-computer && echo 1 > repo/src/a.ts",
  `echo '{"steps":[{"name":"test","argv":["true"]}]}' > repo/.agent-computer/verify.json`,
  "git -C repo add . && git -C repo commit -qm first && git -C repo worktree add -q -b t7-retry ../t7",
];
const writerStart =
  "herdr-lease-cli writer start --name w-api --kind codex --purpose 'ticket 7' --ticket-ref acme/api#7 --authority-ref acme/api#7 " +
  "--authority-sha256 $(sha256sum < issue7.md | cut -c1-64) --worktree $PWD/t7 --branch t7-retry " +
  "--base-commit $(git -C t7 merge-base main HEAD) --expected-head $(git -C t7 rev-parse HEAD) " +
  "--expected-status-sha256 $(git -C t7 status --porcelain=v1 --untracked-files=all | sha256sum | cut -c1-64) " +
  "--owned-scope src/retry --blocked-scope migrations --protected-branch main --json";

/** An agent nobody leased, settled, as adopt expects to find it. */
const strayAgent = async (world: World) => {
  const agent = await fake(world).script({ op: "createAgent", kind: "claude", cwd: world.dir, name: "old-rev" });
  await fake(world).script({ op: "setState", paneId: agent.pane_id, status: "idle" });
};
/** The pane and cursor of the agent named `name`, read from the double itself. */
const agentNamed = async (world: World, name: string): Promise<{ paneId: string; seq: number }> => {
  const pane = (await fake(world).state()).panes.find((p) => p.agent?.name === name);
  return { paneId: pane?.paneId ?? "no-pane", seq: pane?.agent?.stateChangeSeq ?? -1 };
};

const strayVars = async (world: World): Promise<Record<string, string>> => {
  const stray = await agentNamed(world, "old-rev");
  return { "w1:p4": stray.paneId, "/srv/wt/pr40": world.dir, "--expected-seq 77": `--expected-seq ${stray.seq}` };
};

/** An agent with some output to look at; the examples' pane w1:p2 stands for its pane. */
const lookedAt = async (world: World): Promise<void> => {
  const agent = await fake(world).script({ op: "createAgent", kind: "claude", cwd: world.dir, name: "looked-at" });
  await fake(world).script({ op: "setOutput", paneId: agent.pane_id, text: "review: 2 defects\nDONE" });
};
const lookedAtPane = async (world: World): Promise<Record<string, string>> => ({
  "w1:p2": (await agentNamed(world, "looked-at")).paneId,
});

export const HERDR_PLANS: Record<string, CommandPlan> = {
  "herdr-inspect-cli (binary)": { herdr: true, setup: lookedAt, vars: lookedAtPane },
  "herdr-inspect-cli status": { herdr: true },
  "herdr-inspect-cli sessions": { herdr: true },
  "herdr-inspect-cli topology": { herdr: true, setup: lookedAt },
  "herdr-inspect-cli read": { herdr: true, setup: lookedAt, vars: lookedAtPane },
  "herdr-agent-control (binary)": {
    herdr: true,
    given: acquire,
    setup: reviewers("reviewer-1", "rev-a", "rev-b"),
    varsBefore: { 3: async (world) => ({ [EXAMPLE_RECEIPT]: (await receipts(world))[0] ?? "none" }) },
  },
  "herdr-agent-control status": { herdr: true, given: acquire, setup: reviewers("rev-a") },
  "herdr-agent-control receipts": { herdr: true, given: acquire },
  // writer-api stands for a writer; a reviewer lease of that name is asked the same way.
  "herdr-agent-control ask": { herdr: true, given: acquire, setup: reviewers("reviewer-1", "writer-api") },
  "herdr-agent-control ask-many": { herdr: true, given: acquire, setup: reviewers("rev-a", "rev-b", "w1", "w2") },
  "herdr-agent-control collect": {
    herdr: true,
    given: acquire,
    setup: async (world) => {
      await reviewers("rev-a", "rev-b", "rev-c")(world);
      for (const name of ["rev-a", "rev-b", "rev-c"]) await world.must(`herdr-agent-control ask ${name} --json -- 'check it'`);
    },
    vars: async (world) => {
      const [r1, r2, r3] = await receipts(world);
      return { [EXAMPLE_RECEIPT]: r1 ?? "none", '"$R1"': r2 ?? "none", '"$R2"': r3 ?? "none" };
    },
  },
  "herdr-agent-control abandon": {
    herdr: true,
    given: acquire,
    // A receipt stays pending when the ask stops waiting (--timeout-ms) before the turn ends; once the agent has
    // settled the receipt can be abandoned.
    setup: async (world) => {
      const lease = await reviewer(world, "rev-a");
      const slowTurn = [
        { afterMs: 30, state: "working" as const },
        { afterMs: 2500, output: "late", state: "idle" as const },
      ];
      await fake(world).script({ op: "onPrompt", paneId: lease.pane_id, turns: [slowTurn] });
      const asked = await world.json<{ pending_receipts: string[] }>(
        "herdr-agent-control ask rev-a --timeout-ms 1000 --json -- 'check it'",
      );
      if (asked.pending_receipts.length !== 1) throw new Error("the slow ask should leave its receipt pending");
      await world.must("sleep 3");
    },
    vars: async (world) => ({ [EXAMPLE_RECEIPT]: (await receipts(world))[0] ?? "none" }),
  },
  "herdr-lease-cli (binary)": {
    herdr: true,
    given: [ISSUE],
    vars: async (world) => ({ "/srv/wt/pr42": world.dir, "rev-pr42=118": "rev-pr42=0" }),
  },
  "herdr-lease-cli controller acquire": { herdr: true, given: [ISSUE] },
  "herdr-lease-cli controller resume": { herdr: true, given: acquire },
  "herdr-lease-cli controller renew": { herdr: true, given: acquire },
  "herdr-lease-cli controller release": { herdr: true, given: [...acquire, "echo 'checkpoint c9' > checkpoint-c9.md"] },
  "herdr-lease-cli reviewer start": {
    herdr: true,
    given: acquire,
    vars: async (world) => ({ "/srv/wt/pr42": world.dir }),
  },
  "herdr-lease-cli reviewer close": {
    herdr: true,
    given: acquire,
    vars: async (world) => {
      const lease = await reviewer(world, "rev-pr42");
      return {
        lease_0f3c9a1b2c3d4e5f60718293a4b5c6d7: lease.lease_id,
        "--expected-seq 118": `--expected-seq ${await liveSeq(world, lease.lease_id)}`,
      };
    },
  },
  "herdr-lease-cli writer start": {
    herdr: true,
    given: [...acquire, ...writerRepo],
    vars: async (world) => ({ "/srv/wt/t7": `${world.dir}/t7` }),
  },
  "herdr-lease-cli writer release": {
    herdr: true,
    given: [...acquire, ...writerRepo, "echo 'checkpoint c3' > checkpoint-c3.md"],
    vars: async (world) => {
      const lease = await world.json<Lease>(writerStart);
      return {
        lease_7a1e9a1b2c3d4e5f60718293a4b5c6d7: lease.lease_id,
        "--expected-seq 240": `--expected-seq ${await liveSeq(world, lease.lease_id)}`,
        "/srv/wt/t7": `${world.dir}/t7`,
      };
    },
  },
  "herdr-lease-cli writer verify": {
    herdr: true,
    given: [...acquire, ...verifyRepo],
    vars: async (world) => {
      const lease = await world.json<Lease>(writerStart);
      return { lease_7a1e9a1b2c3d4e5f60718293a4b5c6d7: lease.lease_id, "/srv/wt/t7": `${world.dir}/t7` };
    },
  },
  "herdr-lease-cli adopt": {
    herdr: true,
    given: [...acquire, "echo 'issue 5' > issue5.md"],
    setup: strayAgent,
    vars: strayVars,
  },
  "herdr-lease-cli adopted close": {
    herdr: true,
    given: [...acquire, "echo 'issue 5' > issue5.md", "echo 'checkpoint c1' > checkpoint-c1.md"],
    setup: strayAgent,
    vars: async (world) => {
      const stray = await strayVars(world);
      const lease = await world.json<Lease>(
        `herdr-lease-cli adopt --target old-rev --expected-pane-id ${stray["w1:p4"]} --expected-name old-rev --expected-kind claude ` +
          `--expected-cwd ${world.dir} ${stray["--expected-seq 77"]} --authority-ref acme/api#5 ` +
          "--authority-sha256 $(sha256sum < issue5.md | cut -c1-64) --purpose 'stale reviewer' --json",
      );
      return {
        lease_5d2b9a1b2c3d4e5f60718293a4b5c6d7: lease.lease_id,
        "--expected-seq 77": `--expected-seq ${await liveSeq(world, lease.lease_id)}`,
      };
    },
  },
  "herdr-lease-cli wait-any": {
    herdr: true,
    setup: async (world) => {
      for (const name of ["rev-a", "rev-b"]) {
        const agent = await fake(world).script({ op: "createAgent", kind: "claude", cwd: world.dir, name });
        await fake(world).script({ op: "setState", paneId: agent.pane_id, status: "idle" });
      }
    },
    vars: async (world) => ({
      "rev-a=118": "rev-a=0",
      "rev-b=121": "rev-b=0",
      "w1:p4": (await agentNamed(world, "rev-a")).paneId,
    }),
  },
  "herdr-lease-cli bridge-status": { herdr: true },
  // proj.ctl:g3 stands for the lease of a coordinator that acquired from another pane, which was closed since, and
  // that lease has expired (takeover needs both).
  "herdr-lease-cli controller takeover": {
    herdr: true,
    given: [ISSUE],
    setup: async (world) => {
      const old = await fake(world).script({ op: "createAgent", kind: "claude", cwd: world.dir, name: "old-coord" });
      await world.must(`HERDR_PANE_ID=${old.pane_id} ${acquire[1]}`);
      await fake(world).script({ op: "closePane", paneId: old.pane_id });
      const { Database } = await import("bun:sqlite");
      const db = new Database(join(world.env.AGENT_COMPUTER_HOME as string, "agent-computer.sqlite"));
      try {
        db.run("PRAGMA busy_timeout = 5000");
        db.run("UPDATE herdr_controller_leases SET expires_at = 1");
      } finally {
        db.close();
      }
    },
    vars: async () => ({ "proj.ctl:g3": "proj.ctl:g1" }),
  },
  "herdr-lease-cli inventory": { herdr: true, given: acquire, setup: reviewers("rev-a") },
  "herdr-lease-cli reconcile": {
    herdr: true,
    given: acquire,
    setup: async (world) => {
      const lease = await reviewer(world, "rev-gone");
      await fake(world).script({ op: "closePane", paneId: lease.pane_id });
    },
  },
  "herdr-lease-cli reviewer sweep": { herdr: true, given: acquire, setup: reviewers("rev-a", "rev-b") },
};
