// Every command with controller authority first reads the caller's own pane; ask's admission and abandon then read
// the target agent from Herdr; a Herdr server restart or live handoff cuts that
// read (`protocol`, then `server_unavailable` until the server is back). They read again within the call's deadline,
// like collect and wait-any do, and never repeat a write: the prompt is typed once. Controller authority is real
// (binding, credential and fence files in a temp state dir, the fence row from a stand-in store).
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type Herdr, type HerdrAgent, HerdrError } from "../../app/agent_computer/src/adapters/herdr/client.ts";
import { ancestry } from "../../app/agent_computer/src/adapters/process-ancestry.ts";
import { abandonReceipt } from "../../app/agent_computer/src/domain/herdr/abandon.ts";
import type { AgentIdentity } from "../../app/agent_computer/src/domain/herdr/agent-identity.ts";
import { loadAuthority } from "../../app/agent_computer/src/domain/herdr/controller-authority.ts";
import { observeCaller } from "../../app/agent_computer/src/domain/herdr/controller-caller.ts";
import { handoff } from "../../app/agent_computer/src/domain/herdr/handoff.ts";
import type { HerdrDeps } from "../../app/agent_computer/src/domain/herdr/herdr-deps.ts";
import { type LeaseRecord, saveLease } from "../../app/agent_computer/src/domain/herdr/leases.ts";
import { findReceipt, newReceipt, saveReceipt, tokenOf } from "../../app/agent_computer/src/domain/herdr/receipts.ts";
import { fenceHashOf, writeControllerFiles } from "../../app/agent_computer/src/local/controller-files.ts";
import { herdrStateDirs } from "../../app/agent_computer/src/local/herdr-state.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import type { ControllerLeaseRecord } from "../../app/agent_computer/src/store/port-herdr.ts";
import { memoryProcesses } from "../helpers/local-processes.ts";

const CONTROLLER = "ctl";
const FENCE = "fence-token";
const LEASE_ID = `lease_${"1".repeat(32)}`;

const agentIn = (paneId: string, terminalId: string, name: string, cwd: string, status: HerdrAgent["status"], seq: number) =>
  ({
    paneId,
    terminalId,
    workspaceId: "w1",
    tabId: "w1:t1",
    name,
    kind: "claude",
    status,
    stateChangeSeq: seq,
    cwd,
    focused: false,
    interactiveReady: true,
    launchPending: false,
  }) as HerdrAgent;

const cut = (kind: "interrupted" | "server_unavailable") => new HerdrError(kind, "cut", { command: "herdr agent get" });

/**
 * A Herdr whose worker pane answers `agent get` with the scripted cuts first, then its current state; the
 * controller's own pane likewise with its own cuts (none by default). A prompt makes the worker work; a wait ends
 * its turn.
 */
const restartingHerdr = (cwd: string, cuts: HerdrError[], callerCuts: HerdrError[]) => {
  const controller = agentIn("w1:p1", "term_ctl", "lead", cwd, "working", 1);
  let worker = agentIn("w1:p2", "term_wk", "rev", cwd, "idle", 10);
  const calls: string[] = [];
  const herdr = {
    getAgent: async (target: string) => {
      if (target === controller.paneId) {
        calls.push("get caller");
        const next = callerCuts.shift();
        if (next) throw next;
        return controller;
      }
      calls.push("get");
      const next = cuts.shift();
      if (next) throw next;
      return worker;
    },
    promptAgent: async () => {
      calls.push("prompt");
      worker = { ...worker, status: "working", stateChangeSeq: 11 };
      return worker;
    },
    waitAgent: async () => {
      calls.push("wait");
      worker = { ...worker, status: "idle", stateChangeSeq: 12 };
      return worker;
    },
    readAgent: async () => "the review text",
  } as unknown as Herdr;
  const identity: AgentIdentity = { pane_id: "w1:p2", terminal_id: "term_wk", agent_name: "rev", agent_kind: "claude", cwd };
  return { herdr, calls, identity };
};

/** A controller bound to pane w1:p1 and this process, holding an active reviewer lease on the worker. */
const controllerWorld = (cuts: HerdrError[], callerCuts: HerdrError[] = []) => {
  const home = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "restart-admission-"));
  const cwd = mkdtempSync(join(home, "repo-"));
  const dirs = herdrStateDirs(resolvePaths({ AGENT_COMPUTER_HOME: home }));
  const now = Date.now();
  const fake = restartingHerdr(cwd, cuts, callerCuts);
  writeControllerFiles(
    dirs,
    {
      version: 1,
      controller_id: CONTROLLER,
      generation: 1,
      host_id: "host",
      pane_id: "w1:p1",
      terminal_id: "term_ctl",
      workspace_id: "w1",
      agent_name: "lead",
      agent_kind: "claude",
      cwd,
      process: ancestry()[0] ?? null,
      bound_at: now,
    },
    { version: 1, controller_id: CONTROLLER, lease_id: "ctl-lease", fence_token: FENCE, generation: 1 },
  );
  const fence: ControllerLeaseRecord = {
    controllerId: CONTROLLER,
    leaseId: "ctl-lease",
    fenceHash: fenceHashOf(FENCE),
    generation: 1,
    hostId: "host",
    authorityRef: "acme/api#1",
    authoritySha256: "a".repeat(64),
    state: "active",
    acquiredAt: now,
    renewedAt: now,
    expiresAt: now + 600_000,
    releasedAt: null,
    checkpointRef: null,
    checkpointSha256: null,
  };
  const store = {
    dialect: "sqlite",
    read: (fn: (tx: unknown) => Promise<unknown>) => fn({ herdr: { controllerLease: async () => fence } }),
    write: () => Promise.reject(new Error("these calls write no store row")),
    close: async () => {},
  } as unknown as Store;
  const lease: LeaseRecord = {
    version: 1,
    lease_id: LEASE_ID,
    type: "reviewer",
    controller_id: CONTROLLER,
    state: "active",
    purpose: "review",
    authority_ref: null,
    authority_sha256: null,
    agent_name: "rev",
    agent_kind: "claude",
    cwd,
    pane_id: "w1:p2",
    terminal_id: "term_wk",
    workspace_id: "w1",
    created_at: now,
    updated_at: now,
  };
  saveLease(dirs, lease, now);
  const deps: HerdrDeps = {
    herdr: fake.herdr,
    env: { AGENT_CONTROL_CONTROLLER_ID: CONTROLLER, HERDR_ENV: "1", HERDR_PANE_ID: "w1:p1" },
    dirs,
    host: "test-host",
    local: {
      hostId: "host",
      probe: () => ({ exists: false, startTime: null }),
      processes: memoryProcesses(),
      addresses: () => [],
    },
    now: () => Date.now(),
    store,
    git: () => {
      throw new Error("no git in this test");
    },
    sleep: (ms) => Bun.sleep(ms),
    newId: (prefix) => `${prefix}_id`,
  };
  return { deps, calls: fake.calls, identity: fake.identity };
};

/** A reserved receipt of the controller on the leased worker. */
const reservedReceipt = (world: ReturnType<typeof controllerWorld>) => {
  const receipt = newReceipt({
    controller_id: CONTROLLER,
    target: "rev",
    target_lease_id: LEASE_ID,
    lease_type: "reviewer",
    identity: world.identity,
    created_at: Date.now(),
    before_seq: 10,
  });
  saveReceipt(world.deps.dirs, receipt);
  return tokenOf(receipt);
};

describe("a Herdr restart during ask's admission", () => {
  test("the target is read again and the request typed once; the result is collected", async () => {
    const { deps, calls } = controllerWorld([cut("interrupted"), cut("server_unavailable")]);
    const output = await handoff(deps, [{ target: "rev", message: "review this" }], "all", 10_000, 20);
    expect(output.results[0]).toMatchObject({ target: "rev", state: "completed", output: "the review text" });
    expect(calls.slice(0, 4)).toEqual(["get caller", "get", "get", "get"]);
    expect(calls.filter((call) => call === "prompt")).toHaveLength(1);
  });
});

describe("a Herdr restart during abandon's read", () => {
  test("the agent is read again and the receipt abandoned", async () => {
    const world = controllerWorld([cut("interrupted"), cut("server_unavailable")]);
    const result = await abandonReceipt(world.deps, reservedReceipt(world));
    expect(result).toMatchObject({ target: "rev", state: "failed", failure: "abandoned", observed_status: "idle" });
    expect(world.calls).toEqual(["get caller", "get", "get", "get"]);
  });

  test("a Herdr still gone at the read deadline is UNAVAILABLE and the receipt stays outstanding", async () => {
    const cuts = Array.from({ length: 1000 }, () => cut("server_unavailable"));
    const world = controllerWorld(cuts);
    const token = reservedReceipt(world);
    await expect(abandonReceipt(world.deps, token, 300)).rejects.toMatchObject({ code: "UNAVAILABLE" });
    expect(findReceipt(world.deps.dirs, token, CONTROLLER).state).toBe("reserved");
  });
});

describe("a Herdr restart during the read of the caller's own pane", () => {
  test("controller authority reads the pane again instead of ending INTERNAL; the receipt is then abandoned", async () => {
    const world = controllerWorld([], [cut("interrupted"), cut("server_unavailable")]);
    const token = reservedReceipt(world);
    const result = await abandonReceipt(world.deps, token);
    expect(result).toMatchObject({ target: "rev", state: "failed", failure: "abandoned" });
    expect(world.calls).toEqual(["get caller", "get caller", "get caller", "get"]);
  });

  test("acquire, resume and takeover read the caller's pane the same way", async () => {
    const world = controllerWorld([], [cut("interrupted")]);
    const caller = await observeCaller(world.deps, "w1:p1");
    expect(caller).toMatchObject({ name: "lead", terminalId: "term_ctl" });
    expect(world.calls).toEqual(["get caller", "get caller"]);
  });

  test("a Herdr still gone at the deadline is UNAVAILABLE and no other read is made", async () => {
    const cuts = [cut("interrupted"), ...Array.from({ length: 1000 }, () => cut("server_unavailable"))];
    const world = controllerWorld([], cuts);
    await expect(loadAuthority(world.deps, Date.now() + 300)).rejects.toMatchObject({ code: "UNAVAILABLE" });
    expect(world.calls.every((call) => call === "get caller")).toBe(true);
  });
});
