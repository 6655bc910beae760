// agent-send-cli's default output stays within the family's 16 KB budget at the largest inputs it takes: --to's
// 100 recipients with the longest names and the longest outcome, and a broadcast to 10,000 agents (a summary).
import { describe, expect, test } from "vitest";
import sendCommand from "../../app/agent_computer/src/cli/mesh/agent-send-cli.ts";
import { broadcastOutput } from "../../app/agent_computer/src/cli/mesh/send-output.ts";
import type { SendResult } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { summarise } from "../../app/agent_computer/src/domain/mesh/send-summary.ts";

const BUDGET = 16 * 1024;

const resultFor = (count: number, outcome: SendResult["recipients"][number]["outcome"]): SendResult => {
  const recipients = Array.from({ length: count }, (_, i) => ({
    agent_id: `${"a".repeat(58)}-${String(i).padStart(5, "0")}`,
    outcome,
    seq: 123_456_789,
  }));
  return {
    id: `msg_${"0".repeat(32)}`,
    from: "b".repeat(64),
    created_at: "2026-12-06T00:00:00.000Z",
    thread_id: null,
    reply_to: null,
    replayed: false,
    recipients,
    summary: summarise(recipients),
    sender_session: "live",
  };
};

const options = (extra: Record<string, unknown>) => ({ agentId: "b".repeat(64), recipients: false, ...extra }) as never;

describe("agent-send-cli output budget", () => {
  test("100 named recipients, each with the longest outcome text, print within 16 KB", () => {
    const text = sendCommand.render(resultFor(100, "process_exited") as never, options({ to: ["x"] }));
    expect(Buffer.byteLength(text)).toBeLessThan(BUDGET);
    expect(text.split("\n").filter((line) => line.startsWith("  a"))).toHaveLength(100);
    expect(text).toContain("process_exited: PROCESS EXITED");
  });

  test("a broadcast to 10,000 prints a summary within 16 KB, text and --json", () => {
    const out = broadcastOutput(resultFor(10_000, "live"), undefined);
    const text = sendCommand.render(out as never, options({ broadcast: true }));
    expect(Buffer.byteLength(text)).toBeLessThan(2048);
    expect(Buffer.byteLength(JSON.stringify(out, null, 2))).toBeLessThan(2048);
    expect(text).toContain("live (checked in, will see it): 10000: ");
  });
});
