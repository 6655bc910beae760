// The auto-wake rules as a pure decision, the fixed prompt text and the knobs' bounds.
import { describe, expect, test } from "vitest";
import { decideWake, type WakeView } from "../../app/agent_computer/src/domain/wake/policy.ts";
import {
  buildWakePrompt,
  hashWakeToken,
  mintWakeToken,
  WAKE_PROMPT_PATTERN,
} from "../../app/agent_computer/src/domain/wake/prompt.ts";
import { defaultWakeTuning, wakeTuningFromEnv } from "../../app/agent_computer/src/domain/wake/tuning.ts";

const NOW = 1_000_000;
const view = (over: Partial<WakeView> = {}): WakeView => ({
  now: NOW,
  host: "here",
  backlog: {
    session: { host: "here", endedAt: null, expiresAt: NOW + 60_000 },
    count: 2,
    firstSeq: 1,
    lastSeq: 2,
    firstCreatedAt: NOW - 1_000,
    outstanding: false,
  },
  pane: { status: "idle", confirmed: true },
  firstSeenAt: NOW - 1_000,
  deferSince: null,
  retryAt: 0,
  tuning: { coalesceMs: 30, workingMaxMs: 5_000 },
  ...over,
});

describe("decideWake", () => {
  test("an idle or done agent with new mail is prompted at once when its status is confirmed", () => {
    expect(decideWake(view())).toEqual({ kind: "prompt", verify: false, forced: false });
    expect(decideWake(view({ pane: { status: "done", confirmed: true } }))).toEqual({
      kind: "prompt",
      verify: false,
      forced: false,
    });
  });

  test("an unconfirmed or unknown pane status is verified with Herdr before any prompt", () => {
    expect(decideWake(view({ pane: { status: "idle", confirmed: false } }))).toMatchObject({ kind: "prompt", verify: true });
    expect(decideWake(view({ pane: null }))).toMatchObject({ kind: "prompt", verify: true });
  });

  test("no new mail: nothing", () => {
    expect(decideWake(view({ backlog: { ...view().backlog, count: 0, firstSeq: null, lastSeq: null } }))).toEqual({
      kind: "nothing",
    });
  });

  test("one outstanding wake holds every further one", () => {
    expect(decideWake(view({ backlog: { ...view().backlog, outstanding: true } }))).toMatchObject({
      kind: "wait",
      reason: "outstanding",
    });
  });

  test("the coalescing window opens when the first message was sent, never later than it was first seen", () => {
    const fresh = { ...view().backlog, firstCreatedAt: NOW - 10 };
    expect(decideWake(view({ firstSeenAt: NOW, backlog: fresh }))).toEqual({
      kind: "wait",
      reason: "coalescing",
      until: NOW + 20,
    });
    // A sender clock running ahead cannot stretch the window past first sight.
    const ahead = { ...view().backlog, firstCreatedAt: NOW + 60_000 };
    expect(decideWake(view({ firstSeenAt: NOW - 5, backlog: ahead }))).toEqual({
      kind: "wait",
      reason: "coalescing",
      until: NOW + 25,
    });
    expect(decideWake(view({ firstSeenAt: NOW - 40, backlog: ahead }))).toMatchObject({ kind: "prompt" });
  });

  test("after a failure or at the hourly cap nothing happens before retryAt", () => {
    expect(decideWake(view({ retryAt: NOW + 500 }))).toEqual({ kind: "wait", reason: "backoff", until: NOW + 500 });
  });

  test("a blocked agent is never prompted, however long the wake has waited", () => {
    expect(decideWake(view({ pane: { status: "blocked", confirmed: true } }))).toMatchObject({ kind: "wait", reason: "blocked" });
    const long = view({ pane: { status: "blocked", confirmed: true }, deferSince: NOW - 10 * 3_600_000 });
    expect(decideWake(long)).toMatchObject({ kind: "wait", reason: "blocked" });
  });

  test("a working agent is deferred until it settles, up to the bound, then prompted anyway", () => {
    const working = { status: "working" as const, confirmed: true };
    expect(decideWake(view({ pane: working }))).toEqual({ kind: "wait", reason: "working", until: NOW + 5_000 });
    expect(decideWake(view({ pane: working, deferSince: NOW - 4_999 }))).toMatchObject({ kind: "wait", reason: "working" });
    expect(decideWake(view({ pane: working, deferSince: NOW - 5_000 }))).toEqual({ kind: "prompt", verify: false, forced: true });
    expect(decideWake(view({ pane: { status: "unknown", confirmed: true } }))).toMatchObject({ kind: "wait", reason: "working" });
  });

  test("an ended, expired or moved session disarms", () => {
    expect(decideWake(view({ backlog: { ...view().backlog, session: null } }))).toEqual({
      kind: "disarm",
      reason: "session_ended",
    });
    const ended = { host: "here", endedAt: NOW - 1, expiresAt: NOW + 1 };
    expect(decideWake(view({ backlog: { ...view().backlog, session: ended } }))).toMatchObject({ reason: "session_ended" });
    const expired = { host: "here", endedAt: null, expiresAt: NOW };
    expect(decideWake(view({ backlog: { ...view().backlog, session: expired } }))).toMatchObject({ reason: "session_ended" });
    const moved = { host: "elsewhere", endedAt: null, expiresAt: NOW + 1 };
    expect(decideWake(view({ backlog: { ...view().backlog, session: moved } }))).toEqual({
      kind: "disarm",
      reason: "session_moved",
    });
  });
});

describe("the wake prompt", () => {
  test("is exactly the fixed text with the local id, the count and the token", () => {
    expect(buildWakePrompt("builder-1", 3, "0123456789abcdef")).toBe(
      "[auto-wake #2540] 3 new Agent Mesh message(s); run: agent-inbox-cli --agent-id builder-1 --wake-token 0123456789abcdef",
    );
  });

  test("refuses anything that could carry other text", () => {
    expect(() => buildWakePrompt("a b", 1, "0123456789abcdef")).toThrow();
    expect(() => buildWakePrompt("x;rm", 1, "0123456789abcdef")).toThrow();
    expect(() => buildWakePrompt("ok", 1, "0123456789ABCDEF")).toThrow();
    expect(() => buildWakePrompt("ok", 1, "0123456789abcdef\n")).toThrow();
  });

  test("tokens are 16 lowercase hex, random, and stored only as SHA-256", () => {
    const tokens = new Set(Array.from({ length: 200 }, mintWakeToken));
    expect(tokens.size).toBe(200);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{16}$/);
    const [one] = tokens;
    expect(hashWakeToken(one as string)).toMatch(/^[0-9a-f]{64}$/);
    expect(WAKE_PROMPT_PATTERN.test(buildWakePrompt("a.b_c-d", 1, one as string))).toBe(true);
  });
});

describe("tuning", () => {
  test("defaults poll SQLite often and PostgreSQL (with NOTIFY) less", () => {
    expect(defaultWakeTuning("sqlite").pollMs).toBeLessThan(defaultWakeTuning("postgres").pollMs);
  });

  test("valid overrides apply; out-of-bounds values are reported and ignored, so a cap can never be switched off", () => {
    const warnings: string[] = [];
    const tuning = wakeTuningFromEnv(
      { AGENT_COMPUTER_WAKE_HOURLY_CAP: "0", AGENT_COMPUTER_WAKE_COALESCE_MS: "5", AGENT_COMPUTER_WAKE_POLL_MS: "x" },
      "sqlite",
      (m) => warnings.push(m),
    );
    expect(tuning.hourlyCap).toBe(defaultWakeTuning("sqlite").hourlyCap);
    expect(tuning.coalesceMs).toBe(5);
    expect(tuning.pollMs).toBe(defaultWakeTuning("sqlite").pollMs);
    expect(warnings).toHaveLength(2);
  });

  test("an override is decimal digits, as an integer flag is: 0x10, 1e3, ' 50 ', +50, 050 are reported and ignored", () => {
    for (const raw of ["0x10", "1e3", " 50 ", "+50", "050", "50.0"]) {
      const warnings: string[] = [];
      const tuning = wakeTuningFromEnv({ AGENT_COMPUTER_WAKE_COALESCE_MS: raw }, "sqlite", (m) => warnings.push(m));
      expect(tuning.coalesceMs, raw).toBe(defaultWakeTuning("sqlite").coalesceMs);
      expect(warnings, raw).toEqual([`AGENT_COMPUTER_WAKE_COALESCE_MS=${raw} ignored: must be a decimal integer 0..10000`]);
    }
  });
});
