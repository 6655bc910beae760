// Collect and settle-waits against a scripted stand-in for Herdr: global cursors that jump (> not +1), a turn
// that moves on while its output is read, a settled state at or before the cursor, a replaced agent.
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  type Herdr,
  type HerdrAgent,
  type HerdrAgentStatus,
  HerdrError,
} from "../../app/agent_computer/src/adapters/herdr/client.ts";
import type { AgentIdentity } from "../../app/agent_computer/src/domain/herdr/agent-identity.ts";
import { collectOne } from "../../app/agent_computer/src/domain/herdr/collect.ts";
import type { HerdrDeps } from "../../app/agent_computer/src/domain/herdr/herdr-deps.ts";
import { newReceipt, type ReceiptRecord, saveReceipt } from "../../app/agent_computer/src/domain/herdr/receipts.ts";
import { waitForSettled } from "../../app/agent_computer/src/domain/herdr/settle.ts";
import { waitAny } from "../../app/agent_computer/src/domain/herdr/wait-any.ts";
import { herdrStateDirs } from "../../app/agent_computer/src/local/herdr-state.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { memoryProcesses } from "../helpers/local-processes.ts";

const identity: AgentIdentity = {
  pane_id: "w1:p2",
  terminal_id: "term_ab",
  agent_name: "rev",
  agent_kind: "claude",
  cwd: "/repo",
};

const agent = (status: HerdrAgentStatus, seq: number, terminalId = "term_ab"): HerdrAgent => ({
  paneId: "w1:p2",
  terminalId,
  workspaceId: "w1",
  tabId: "w1:t1",
  name: "rev",
  kind: "claude",
  status,
  stateChangeSeq: seq,
  cwd: "/repo",
  focused: false,
  interactiveReady: true,
  launchPending: false,
});

/** A Herdr whose successive `agent get` / `agent wait` answers are scripted; reads run a hook first. */
const scriptedHerdr = (gets: HerdrAgent[], waits: HerdrAgent[], onRead: () => void = () => {}) => {
  const calls: string[] = [];
  const herdr = {
    getAgent: async () => {
      calls.push("get");
      return gets.length > 1 ? (gets.shift() as HerdrAgent) : (gets[0] as HerdrAgent);
    },
    waitAgent: async (_target: string, options: { until?: readonly string[] }) => {
      calls.push(`wait:${(options.until ?? ["settled"]).join("|")}`);
      return waits.shift() as HerdrAgent;
    },
    readAgent: async () => {
      calls.push("read");
      onRead();
      return "the review text";
    },
  } as unknown as Herdr;
  return { herdr, calls };
};

const refuse = () => Promise.reject(new Error("no store in this test"));
const noStore: Store = { dialect: "sqlite", read: refuse, write: refuse, close: async () => {} };

const depsWith = (herdr: Herdr): HerdrDeps => ({
  herdr,
  env: {},
  dirs: herdrStateDirs(resolvePaths({ AGENT_COMPUTER_HOME: mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "collect-")) })),
  host: "test-host",
  local: { hostId: "host", probe: () => ({ exists: false, startTime: null }), processes: memoryProcesses(), addresses: () => [] },
  now: () => Date.now(),
  store: noStore,
  git: () => {
    throw new Error("no git in this test");
  },
  sleep: (ms) => Bun.sleep(ms),
  newId: (prefix) => `${prefix}_id`,
});

const pendingReceipt = (deps: HerdrDeps, afterSeq: number): ReceiptRecord => {
  const receipt = {
    ...newReceipt({
      controller_id: "ctl",
      target: "rev",
      target_lease_id: "lease_x",
      lease_type: "reviewer",
      identity,
      created_at: Date.now(),
      before_seq: afterSeq - 3,
    }),
    state: "pending" as const,
    after_seq: afterSeq,
  };
  saveReceipt(deps.dirs, receipt);
  return receipt;
};

const limits = () => ({ deadline: Date.now() + 5_000, readLines: 50 });

describe("collect", () => {
  test("a settle seven numbers after the working cursor completes the receipt (cursors are global)", async () => {
    const { herdr, calls } = scriptedHerdr([agent("working", 10), agent("done", 17)], [agent("done", 17)]);
    const deps = depsWith(herdr);
    const result = await collectOne(deps, pendingReceipt(deps, 10), limits());
    expect(result).toMatchObject({ state: "completed", status: "done", state_change_seq: 17, output: "the review text" });
    // The wait's own answer is never the observation: Herdr may answer a status the agent already left.
    expect(calls).toEqual(["get", "wait:settled", "get", "read", "get"]);
  });

  test("output read while the agent moved on is refused, not attributed to this receipt", async () => {
    const gets = [agent("working", 10), agent("idle", 12)];
    const { herdr } = scriptedHerdr(gets, [agent("idle", 12)], () => {
      gets.splice(0, gets.length, agent("working", 14));
    });
    const deps = depsWith(herdr);
    const result = await collectOne(deps, pendingReceipt(deps, 10), limits());
    expect(result).toMatchObject({ state: "failed", stage: "collect", error: "cursor_superseded" });
    expect(result.output).toBeUndefined();
  });

  test("another kind of agent in the leased pane fails the receipt with identity_changed", async () => {
    const { herdr } = scriptedHerdr([{ ...agent("idle", 30), kind: "codex" }], []);
    const deps = depsWith(herdr);
    expect(await collectOne(deps, pendingReceipt(deps, 10), limits())).toMatchObject({
      state: "failed",
      error: "identity_changed",
    });
  });

  test("the same agent under a new terminal (a Herdr handoff) is not another agent: its settled turn is collected", async () => {
    const { herdr } = scriptedHerdr([agent("idle", 30, "term_other")], []);
    const deps = depsWith(herdr);
    expect(await collectOne(deps, pendingReceipt(deps, 10), limits())).toMatchObject({ state: "completed" });
  });
});

describe("settle waits", () => {
  test("a settled state at or before the cursor does not count: it waits for working, then for the next settle", async () => {
    const { herdr, calls } = scriptedHerdr(
      [agent("idle", 15), agent("working", 21), agent("idle", 23)],
      [agent("working", 21), agent("idle", 23)],
    );
    const outcome = await waitForSettled(herdr, identity, 20, Date.now() + 5_000);
    expect(outcome).toMatchObject({ kind: "settled", agent: { stateChangeSeq: 23 } });
    expect(calls).toEqual(["get", "wait:working", "get", "wait:settled", "get"]);
  });

  test("the deadline ends the wait as a timeout, the abort signal as cancelled", async () => {
    const { herdr } = scriptedHerdr([agent("working", 5)], [agent("working", 5), agent("working", 5)]);
    expect(await waitForSettled(herdr, identity, 5, Date.now() - 1)).toEqual({ kind: "timeout" });
    const aborted = new AbortController();
    aborted.abort();
    expect(await waitForSettled(herdr, identity, 5, Date.now() + 1000, aborted.signal)).toEqual({ kind: "cancelled" });
  });

  test("a Herdr restart mid-wait (connection cut, then no server for a while) is waited out with the same cursor", async () => {
    const cut = (kind: "interrupted" | "server_unavailable") => new HerdrError(kind, "cut", { command: "herdr agent wait" });
    const calls: string[] = [];
    const gets: Array<HerdrAgent | HerdrError> = [
      agent("working", 21),
      cut("server_unavailable"),
      agent("working", 21),
      agent("idle", 22),
    ];
    const waits: Array<HerdrAgent | HerdrError> = [cut("interrupted"), agent("idle", 22)];
    const herdr = {
      getAgent: async () => {
        calls.push("get");
        const next = gets.shift() as HerdrAgent | HerdrError;
        if (next instanceof HerdrError) throw next;
        return next;
      },
      waitAgent: async () => {
        calls.push("wait");
        const next = waits.shift() as HerdrAgent | HerdrError;
        if (next instanceof HerdrError) throw next;
        return next;
      },
    } as unknown as Herdr;
    const outcome = await waitForSettled(herdr, identity, 21, Date.now() + 5_000);
    expect(outcome).toMatchObject({ kind: "settled", agent: { status: "idle", stateChangeSeq: 22 } });
    expect(calls).toEqual(["get", "wait", "get", "get", "wait", "get"]);
  });

  test("a Herdr that is still gone at the deadline ends the wait as UNAVAILABLE, not INTERNAL", async () => {
    const herdr = {
      getAgent: async () => {
        throw new HerdrError("server_unavailable", "no server", { command: "herdr agent get" });
      },
    } as unknown as Herdr;
    await expect(waitForSettled(herdr, identity, 21, Date.now() + 600)).rejects.toMatchObject({ code: "UNAVAILABLE" });
  });
});

describe("a Herdr restart before the first read", () => {
  const cut = (kind: "interrupted" | "server_unavailable") => new HerdrError(kind, "cut", { command: "herdr agent get" });
  /** `agent get` answers from the queue (an error is thrown) and then keeps answering the last agent. */
  const restarting = (gets: Array<HerdrAgent | HerdrError>) => {
    const calls: string[] = [];
    const herdr = {
      getAgent: async (target: string) => {
        calls.push(`get:${target}`);
        const next = (gets.length > 1 ? gets.shift() : gets[0]) as HerdrAgent | HerdrError;
        if (next instanceof HerdrError) throw next;
        return next;
      },
      readAgent: async () => "the review text",
    } as unknown as Herdr;
    return { herdr, calls };
  };

  test("collect's replay of a completed receipt reads again instead of ending INTERNAL", async () => {
    const { herdr, calls } = restarting([cut("interrupted"), cut("server_unavailable"), agent("idle", 17)]);
    const deps = depsWith(herdr);
    const receipt = { ...pendingReceipt(deps, 10), state: "completed" as const, settled_seq: 17, settled_status: "idle" };
    saveReceipt(deps.dirs, receipt);
    const result = await collectOne(deps, receipt, limits());
    expect(result).toMatchObject({ state: "completed", state_change_seq: 17, output: "the review text" });
    expect(calls.slice(0, 3)).toEqual(["get:w1:p2", "get:w1:p2", "get:w1:p2"]);
  });

  test("wait-any's first read of each worker reads again instead of ending INTERNAL", async () => {
    const { herdr } = restarting([cut("interrupted"), agent("idle", 5)]);
    const result = await waitAny(depsWith(herdr), {
      workers: ["rev"],
      afterSeq: new Map(),
      timeoutMs: 5_000,
      readLines: 20,
    });
    expect(result).toMatchObject({ target: "rev", status: "idle", state_change_seq: 5, output: "the review text" });
  });

  test("a Herdr still gone at the deadline is UNAVAILABLE, not INTERNAL", async () => {
    const { herdr } = restarting([cut("server_unavailable")]);
    const deps = depsWith(herdr);
    const receipt = { ...pendingReceipt(deps, 10), state: "completed" as const, settled_seq: 17 };
    await expect(collectOne(deps, receipt, { deadline: Date.now() + 300, readLines: 5 })).rejects.toMatchObject({
      code: "UNAVAILABLE",
    });
  });
});
