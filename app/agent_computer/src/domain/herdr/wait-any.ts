// wait-any: the first of several workers to end a turn (idle, done or blocked) with state_change_seq greater
// than that worker's --after-seq, and its output, in one result. Nothing is written or prompted; the losing waits are
// ended. Capturing output is Herdr's recent read, which scrolls an idle alternate-screen agent.
import { AppError } from "../../errors.ts";
import { type AgentIdentity, identityOf } from "./agent-identity.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { isRedetecting, RESTORE_GRACE_MS } from "./herdr-epoch.ts";
import { viaHerdr } from "./herdr-failure.ts";
import { surviving } from "./herdr-reconnect.ts";
import { abortOthers, captureSettled, waitForSettled } from "./settle.ts";

export interface WaitAnyInput {
  workers: readonly string[];
  afterSeq: ReadonlyMap<string, number>;
  timeoutMs: number;
  readLines: number;
}

export interface WaitAnyResult {
  event: "agent_settled";
  target: string;
  pane_id: string;
  name: string;
  kind: string;
  cwd: string;
  status: string;
  state_change_seq: number;
  /** Untrusted text: the worker's recent output. */
  output: string;
}

type Outcome = { kind: "won"; result: WaitAnyResult } | { kind: "gone" | "timeout" | "cancelled" };

const watch = async (
  deps: HerdrDeps,
  target: string,
  identity: AgentIdentity,
  afterSeq: number,
  input: WaitAnyInput & { deadline: number },
  signal: AbortSignal,
): Promise<Outcome> => {
  let cursor = afterSeq;
  let watched = identity;
  let turnOpen = true;
  for (;;) {
    const outcome = await waitForSettled(deps.herdr, watched, cursor, input.deadline, signal, turnOpen);
    if (outcome.kind !== "settled") return { kind: outcome.kind };
    const capture = await captureSettled(deps.herdr, watched, outcome.agent, input.readLines, input.deadline);
    // A new Herdr server took the pane over during the read: that settled turn was not answered yet, so the new
    // server's first settled status is still it (turn open, rebased from the old server's terminal).
    if (capture.epochChanged) {
      watched = { ...watched, terminal_id: outcome.agent.terminalId };
      cursor = Number.MAX_SAFE_INTEGER;
      turnOpen = true;
      continue;
    }
    // It moved on while its screen was read; that state is gone, so wait for the next one.
    if (!capture.stable) {
      watched = { ...watched, terminal_id: outcome.agent.terminalId };
      cursor = outcome.agent.stateChangeSeq;
      continue;
    }
    const { agent } = outcome;
    return {
      kind: "won",
      result: {
        event: "agent_settled",
        target,
        pane_id: agent.paneId,
        name: agent.name ?? "",
        kind: agent.kind ?? "",
        cwd: agent.cwd ?? "",
        status: agent.status,
        state_change_seq: agent.stateChangeSeq,
        output: capture.text,
      },
    };
  }
};

/**
 * The worker as the wait starts. An agent's cursor only grows under one Herdr server, so a --after-seq above it was
 * read under an earlier server (a handoff or restart started the sequence again at 0): whether a turn ended
 * since cannot be told, so the wait is refused with the cursor to use instead. An agent Herdr is still
 * re-detecting (`unknown` at 0) is read again until it shows its real status.
 */
const firstRead = async (deps: HerdrDeps, worker: string, afterSeq: number | undefined, deadline: number) => {
  const graceEnd = Math.min(deadline, Date.now() + RESTORE_GRACE_MS);
  let agent = await viaHerdr(surviving(() => deps.herdr.getAgent(worker), deadline));
  while (afterSeq !== undefined && afterSeq > 0 && isRedetecting(agent) && Date.now() < graceEnd) {
    await Bun.sleep(100);
    agent = await viaHerdr(surviving(() => deps.herdr.getAgent(worker), deadline));
  }
  if (afterSeq !== undefined && afterSeq > agent.stateChangeSeq) {
    throw new AppError(
      "CONFLICT",
      `--after-seq ${worker}=${afterSeq} is above ${worker}'s state_change_seq ${agent.stateChangeSeq}: the cursor was read ` +
        "under an earlier Herdr server (a handoff or restart starts the sequence again at 0)",
      {
        hint: `its state now is ${agent.status} at ${agent.stateChangeSeq}; pass --after-seq ${worker}=${agent.stateChangeSeq} to wait for its next turn`,
      },
    );
  }
  return agent;
};

export const waitAny = async (deps: HerdrDeps, input: WaitAnyInput): Promise<WaitAnyResult> => {
  const unknown = [...input.afterSeq.keys()].filter((key) => !input.workers.includes(key));
  if (unknown.length > 0) throw new AppError("INVALID_INPUT", `--after-seq names no --worker: ${unknown.join(", ")}`);
  const deadline = Date.now() + input.timeoutMs;
  // The first reads wait out a Herdr restart like every later read does (same deadline).
  const agents = await Promise.all(input.workers.map((worker) => firstRead(deps, worker, input.afterSeq.get(worker), deadline)));
  const controllers = input.workers.map(() => new AbortController());
  let winner: WaitAnyResult | undefined;
  const outcomes = await Promise.all(
    input.workers.map(async (worker, index) => {
      const identity = identityOf(agents[index] as NonNullable<(typeof agents)[number]>);
      const signal = (controllers[index] as AbortController).signal;
      const outcome = await watch(deps, worker, identity, input.afterSeq.get(worker) ?? -1, { ...input, deadline }, signal);
      if (outcome.kind === "won" && !winner) {
        winner = outcome.result;
        abortOthers(controllers, index);
      }
      return outcome;
    }),
  );
  if (winner) return winner;
  if (outcomes.every((outcome) => outcome.kind === "gone")) {
    throw new AppError("IDENTITY_CHANGED", "every worker left its pane before ending a turn");
  }
  throw new AppError("TIMEOUT", `no worker ended a turn after its cursor within ${input.timeoutMs} ms`);
};
