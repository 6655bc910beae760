// wait-any: the first of several workers to end a turn (idle, done or blocked) with state_change_seq greater
// than that worker's --after-seq, and its output, in one result. Nothing is written or prompted; the losing waits are
// ended. Capturing output is Herdr's recent read, which scrolls an idle alternate-screen agent.
import { AppError } from "../../errors.ts";
import { type AgentIdentity, identityOf } from "./agent-identity.ts";
import type { HerdrDeps } from "./deps.ts";
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
  for (;;) {
    const outcome = await waitForSettled(deps.herdr, identity, cursor, input.deadline, signal);
    if (outcome.kind !== "settled") return { kind: outcome.kind };
    const capture = await captureSettled(deps.herdr, identity, outcome.agent, input.readLines, input.deadline);
    // It moved on while its screen was read; that state is gone, so wait for the next one.
    if (!capture.stable) {
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

export const waitAny = async (deps: HerdrDeps, input: WaitAnyInput): Promise<WaitAnyResult> => {
  const unknown = [...input.afterSeq.keys()].filter((key) => !input.workers.includes(key));
  if (unknown.length > 0) throw new AppError("INVALID_INPUT", `--after-seq names no --worker: ${unknown.join(", ")}`);
  const deadline = Date.now() + input.timeoutMs;
  // The first reads wait out a Herdr restart like every later read does (same deadline).
  const agents = await Promise.all(
    input.workers.map((worker) => viaHerdr(surviving(() => deps.herdr.getAgent(worker), deadline))),
  );
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
