// One armed agent's look, in process with fakes for the store, Herdr and the pane tracker: what is decided, what is
// typed, what a failure does to the token, the backoff and the arming. The e2e wake-watcher suite runs the same path
// against real stores and the Herdr double.
import { describe, expect, test } from "vitest";
import { HerdrError } from "../../app/agent_computer/src/adapters/herdr/failure-kinds.ts";
import type { HerdrAgent, HerdrAgentStatus } from "../../app/agent_computer/src/adapters/herdr/records.ts";
import { WAKE_PROMPT_PATTERN } from "../../app/agent_computer/src/domain/wake/prompt.ts";
import type { IssueOutcome } from "../../app/agent_computer/src/domain/wake/tokens.ts";
import { defaultWakeTuning } from "../../app/agent_computer/src/domain/wake/tuning.ts";
import type { WakeRegistration } from "../../app/agent_computer/src/local/wake-registrations.ts";
import type { WakeBacklog } from "../../app/agent_computer/src/store/port-wake.ts";
import {
  type AgentWakeDeps,
  type AgentWatch,
  lookAtAgent,
  newAgentWatch,
  STORE_RETRY_MS,
} from "../../app/agent_computer/src/wake/agent-watch.ts";

const NOW = 5_000_000;
const TOKEN = "0123456789abcdef";
const REG: WakeRegistration = {
  agent_id: "sleeper-1",
  pane_id: "w1:p2",
  session_id: "ses_1",
  terminal_id: "term-1",
  kind: "claude",
  herdr_env: {},
  armed_at: NOW - 60_000,
};
const TUNING = { ...defaultWakeTuning("sqlite"), pollMs: 20, coalesceMs: 30, workingMaxMs: 5_000 };

const mail = (over: Partial<WakeBacklog> = {}): WakeBacklog => ({
  session: { host: "here", endedAt: null, expiresAt: NOW + 60_000 },
  count: 3,
  firstSeq: 7,
  lastSeq: 9,
  firstCreatedAt: NOW - 1_000,
  outstanding: false,
  ...over,
});

const agentIn = (status: HerdrAgentStatus, terminalId = REG.terminal_id): HerdrAgent => ({
  paneId: REG.pane_id,
  terminalId,
  workspaceId: "w1",
  tabId: "w1:t1",
  name: undefined,
  kind: "claude",
  status,
  stateChangeSeq: 1,
  cwd: "/tmp",
  focused: false,
  interactiveReady: true,
  launchPending: false,
});

interface Setup {
  backlog?: () => Promise<WakeBacklog>;
  issue?: () => Promise<IssueOutcome>;
  /** The tracker's view: a status a connected wait vouches for, or null (unknown). */
  pane?: { status: HerdrAgentStatus; confirmed: boolean } | null;
  /** What Herdr answers when asked for the status, or the error it throws. */
  herdrAgent?: HerdrAgent;
  prompt?: () => Promise<HerdrAgent>;
}

const setup = (s: Setup = {}) => {
  const calls = { issued: 0, failed: [] as string[], prompts: [] as string[], statusReads: 0, observed: [] as string[] };
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const deps: AgentWakeDeps = {
    host: "here",
    tuning: TUNING,
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
    now: () => NOW,
    backlog: s.backlog ?? (async () => mail()),
    issue: async () => {
      calls.issued += 1;
      return s.issue ? s.issue() : { issued: true, tokenId: "wake_1", token: TOKEN, count: 3 };
    },
    fail: async (tokenId) => {
      calls.failed.push(tokenId);
    },
  };
  const herdr = {
    getAgent: async () => {
      calls.statusReads += 1;
      return s.herdrAgent ?? agentIn("idle");
    },
    promptAgent: async (_pane: string, text: string) => {
      calls.prompts.push(text);
      return s.prompt ? s.prompt() : agentIn("working");
    },
  };
  const tracker = {
    view: () => (s.pane === undefined ? { status: "idle" as const, confirmed: true } : s.pane),
    observe: (agent: HerdrAgent) => {
      calls.observed.push(agent.status);
      return agent.terminalId === REG.terminal_id;
    },
  };
  // Mail first seen long enough ago that the coalescing window is over.
  const w: AgentWatch = { ...newAgentWatch(REG, herdr, tracker), firstSeenAt: NOW - 1_000 };
  return { deps, w, calls, logs };
};

describe("one look at an armed agent (decision and delivery)", () => {
  test("new mail for a confirmed idle agent: one token, exactly the fixed prompt, no Herdr status read", async () => {
    const { deps, w, calls, logs } = setup();
    expect(await lookAtAgent(deps, w)).toEqual({ kind: "keep" });
    expect(calls.issued).toBe(1);
    expect(calls.statusReads).toBe(0);
    expect(calls.prompts).toEqual([
      `[auto-wake #2540] 3 new Agent Mesh message(s); run: agent-inbox-cli --agent-id sleeper-1 --wake-token ${TOKEN}`,
    ]);
    expect(calls.prompts[0]).toMatch(WAKE_PROMPT_PATTERN);
    expect(logs.at(-1)).toMatchObject({ msg: "wake sent", fields: { wake_id: "wake_1", forced: false, verified: false } });
    expect(w.dueAt).toBe(NOW + TUNING.pollMs);
  });

  test("no new mail: nothing issued, a deferral ends, the agent is due after one poll interval", async () => {
    const { deps, w, calls } = setup({
      backlog: async () => mail({ count: 0, firstSeq: null, lastSeq: null, firstCreatedAt: null }),
    });
    w.deferSince = NOW - 100;
    expect(await lookAtAgent(deps, w)).toEqual({ kind: "keep" });
    expect([calls.issued, calls.prompts.length, w.deferSince, w.firstSeenAt]).toEqual([0, 0, null, null]);
    expect(w.dueAt).toBe(NOW + TUNING.pollMs);
  });

  test("no new mail with every delivery announced (LISTEN): due after the quiet interval, or when its session runs out", async () => {
    const quiet = (expiresAt: number) =>
      setup({
        backlog: async () => ({
          ...mail({ count: 0, firstSeq: null, lastSeq: null, firstCreatedAt: null }),
          session: { host: "here", endedAt: null, expiresAt },
        }),
      });
    const far = quiet(NOW + 3_600_000);
    far.deps.quietPollMs = () => 30_000;
    await lookAtAgent(far.deps, far.w);
    expect(far.w.dueAt).toBe(NOW + 30_000);
    // A session about to run out is looked at then (to disarm it), never sooner than one poll.
    const ending = quiet(NOW + 5_000);
    ending.deps.quietPollMs = () => 30_000;
    await lookAtAgent(ending.deps, ending.w);
    expect(ending.w.dueAt).toBe(NOW + 5_000);
    // Mail waiting (here: a wake outstanding) keeps the poll interval whatever the quiet one.
    const waiting = setup({ backlog: async () => mail({ outstanding: true }) });
    waiting.deps.quietPollMs = () => 30_000;
    await lookAtAgent(waiting.deps, waiting.w);
    expect(waiting.w.dueAt).toBe(NOW + TUNING.pollMs);
  });

  test("mail still inside the coalescing window waits, and the agent is due when the window closes", async () => {
    const { deps, w, calls } = setup({ backlog: async () => mail({ firstCreatedAt: NOW - 10 }) });
    w.firstSeenAt = null;
    await lookAtAgent(deps, w);
    expect(calls.issued).toBe(0);
    expect(w.firstSeenAt).toBe(NOW);
    expect(w.dueAt).toBe(NOW - 10 + TUNING.coalesceMs);
  });

  test("an unknown pane status is read from Herdr first; the prompt then counts as verified", async () => {
    const { deps, w, calls, logs } = setup({ pane: null, herdrAgent: agentIn("done") });
    await lookAtAgent(deps, w);
    expect(calls.statusReads).toBe(1);
    expect(calls.observed).toEqual(["done"]);
    expect(calls.prompts).toHaveLength(1);
    expect(logs.at(-1)).toMatchObject({ msg: "wake sent", fields: { verified: true } });
  });

  test("the status read finds the agent blocked: no token, no prompt, the deferral starts", async () => {
    const { deps, w, calls } = setup({ pane: null, herdrAgent: agentIn("blocked") });
    await lookAtAgent(deps, w);
    expect([calls.issued, calls.prompts.length]).toEqual([0, 0]);
    expect(w.deferSince).toBe(NOW);
  });

  test("why mail waits is logged once per change of reason, not on every look", async () => {
    const s: Setup = { pane: { status: "working", confirmed: true } };
    const { deps, w, logs } = setup(s);
    await lookAtAgent(deps, w);
    await lookAtAgent(deps, w);
    s.pane = { status: "blocked", confirmed: true };
    await lookAtAgent(deps, w);
    await lookAtAgent(deps, w);
    expect(logs.filter((l) => l.msg === "wake waits").map((l) => l.fields)).toEqual([
      { agent_id: REG.agent_id, reason: "working", pane: "working" },
      { agent_id: REG.agent_id, reason: "blocked", pane: "blocked" },
    ]);
    expect(logs.every((l) => l.level === "debug")).toBe(true);
  });

  test("the status read finds another terminal in the pane: nothing is issued or typed", async () => {
    const { deps, w, calls } = setup({ pane: null, herdrAgent: agentIn("idle", "term-2") });
    expect(await lookAtAgent(deps, w)).toEqual({ kind: "keep" });
    expect([calls.issued, calls.prompts.length]).toEqual([0, 0]);
  });

  test("a working agent is not prompted until the bound; past it the prompt is forced", async () => {
    const { deps, w, calls, logs } = setup({ pane: { status: "working", confirmed: true } });
    await lookAtAgent(deps, w);
    expect(calls.prompts).toHaveLength(0);
    expect(w.deferSince).toBe(NOW);
    expect(w.dueAt).toBe(NOW + TUNING.pollMs);
    w.deferSince = NOW - TUNING.workingMaxMs;
    await lookAtAgent(deps, w);
    expect(calls.prompts).toHaveLength(1);
    expect(logs.at(-1)).toMatchObject({ msg: "wake sent", fields: { forced: true } });
    expect(w.deferSince).toBeNull();
  });

  test("a session that ended, or moved to another host, ends the arming", async () => {
    const ended = setup({ backlog: async () => mail({ session: null }) });
    expect(await lookAtAgent(ended.deps, ended.w)).toEqual({ kind: "disarm", reason: "session_ended" });
    const moved = setup({ backlog: async () => mail({ session: { host: "elsewhere", endedAt: null, expiresAt: NOW + 1 } }) });
    expect(await lookAtAgent(moved.deps, moved.w)).toEqual({ kind: "disarm", reason: "session_moved" });
    expect(ended.calls.issued + moved.calls.issued).toBe(0);
  });

  test("the store refusing a token because the session ended disarms; the hourly cap sets the retry time", async () => {
    const ended = setup({ issue: async () => ({ issued: false, reason: "session_ended" }) });
    expect(await lookAtAgent(ended.deps, ended.w)).toEqual({ kind: "disarm", reason: "session_ended" });
    const capped = setup({ issue: async () => ({ issued: false, reason: "hourly_cap", retryAt: NOW + 90_000 }) });
    expect(await lookAtAgent(capped.deps, capped.w)).toEqual({ kind: "keep" });
    expect(capped.w.retryAt).toBe(NOW + 90_000);
    expect(capped.logs.at(-1)?.msg).toBe("hourly wake cap reached; mail waits");
    expect(ended.calls.prompts.length + capped.calls.prompts.length).toBe(0);
  });

  test("a prompt Herdr could not deliver fails its token and backs off, doubling per failure", async () => {
    const fail = async (): Promise<HerdrAgent> => {
      throw new HerdrError("prompt_failed", "no", { command: "agent prompt" });
    };
    const { deps, w, calls, logs } = setup({ prompt: fail });
    expect(await lookAtAgent(deps, w)).toEqual({ kind: "keep" });
    expect(calls.failed).toEqual(["wake_1"]);
    expect([w.failures, w.retryAt]).toEqual([1, NOW + 1_000]);
    expect(logs.at(-1)).toMatchObject({ msg: "wake not delivered; will retry", fields: { kind: "prompt_failed" } });
    w.retryAt = 0;
    await lookAtAgent(deps, w);
    expect([w.failures, w.retryAt]).toEqual([2, NOW + 2_000]);
  });

  test("an agent gone from its pane when prompted is disarmed (its token failed)", async () => {
    const gone = async (): Promise<HerdrAgent> => {
      throw new HerdrError("not_found", "gone", { command: "agent prompt" });
    };
    const { deps, w, calls } = setup({ prompt: gone });
    expect(await lookAtAgent(deps, w)).toEqual({ kind: "disarm", reason: "agent_left" });
    expect(calls.failed).toEqual(["wake_1"]);
  });

  test("a failed store poll or token issue is retried after a pause, never thrown out of the look", async () => {
    const poll = setup({ backlog: () => Promise.reject(new Error("database is locked")) });
    expect(await lookAtAgent(poll.deps, poll.w)).toEqual({ kind: "keep" });
    expect(poll.w.dueAt).toBe(NOW + STORE_RETRY_MS);
    expect(poll.logs.at(-1)).toMatchObject({ msg: "store poll failed", fields: { error: "database is locked" } });

    const issue = setup({ issue: () => Promise.reject(new Error("connection reset")) });
    expect(await lookAtAgent(issue.deps, issue.w)).toEqual({ kind: "keep" });
    expect(issue.w.dueAt).toBe(NOW + STORE_RETRY_MS);
    expect(issue.calls.prompts).toEqual([]);
    expect(issue.logs.at(-1)).toMatchObject({ msg: "issuing a wake failed", fields: { error: "connection reset" } });
  });
});
