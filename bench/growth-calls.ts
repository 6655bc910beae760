// The calls bench/growth.ts times on a store of N agents, each as the CLI makes it: in this process through the
// binary's own argv front end, its composition root and its renderer (everything but process start-up, so whatever
// the merged CLI offers, its paging defaults and filters, is what is measured), and as whole compiled processes
// spawned in alternation with two floors. Output sizes are the bytes the CLI would print, text and --json.
import { join } from "node:path";
import { binaries } from "../app/agent_computer/src/cli/binaries.ts";
import { invokeCommand } from "../app/agent_computer/src/cli/kernel/composition-root.ts";
import { parseArgv } from "../app/agent_computer/src/cli/kernel/front.ts";
import { createContext } from "../app/agent_computer/src/cli/kernel/run-binary.ts";
import { isAppError } from "../app/agent_computer/src/errors.ts";
import { safeJson } from "../app/agent_computer/src/terminal-text.ts";
import type { SeededStore } from "./growth-seed.ts";
import { type ProcessSpec, percentile, round, spread, timeAlternating } from "./lib.ts";

const root = join(import.meta.dir, "..");

export interface Budget {
  /** Most timed calls of one kind, and the most wall time spent on them (whichever comes first, after 3). */
  maxRuns: number;
  maxMs: number;
  /** Whole-process runs of each command, in alternation. */
  processRuns: number;
}

export interface CallFigures {
  n: number;
  p50_ms: number;
  p95_ms: number;
  ops_per_s: number;
  text_bytes: number;
  json_bytes: number;
  /** Broadcasts: recipients per call and the median cost of one recipient. */
  recipients?: number;
  us_per_recipient?: number;
}

export type CallResult = CallFigures | { refused: string };

/** The argv of each call on a store (tokens from the store's token dir); `filter` is the filtered page's flags. */
export const callArgv = (store: SeededStore, filter: readonly string[]) => {
  const as = (agent: string) => ["--agent-id", agent, "--token-file", join(store.tokenDir, `${agent}.token`)];
  return {
    checkin_renewal: ["agent-checkin-cli", ...as("reader"), "--confirm"],
    directory_page: ["agents-list-cli"],
    directory_filtered_page: ["agents-list-cli", ...filter],
    broadcast: ["agent-send-cli", ...as("writer"), "--broadcast", "--body", "growth bench broadcast"],
    inbox_read: ["agent-inbox-cli", ...as("reader")],
    send: ["agent-send-cli", ...as("writer"), "--to", "reader", "--body", "growth bench send"],
  };
};

type Ctx = ReturnType<typeof createContext>;

/** One call as the binary makes it, minus start-up: parse, deps, run, render. Returns the text and the result. */
const callOnce = async (ctx: Ctx, argv: readonly string[]): Promise<{ text: string; result: unknown }> => {
  const [name, ...args] = argv;
  const load = binaries[name as string];
  if (!load) throw new Error(`no binary ${name}`);
  const invocation = await parseArgv(await load(), args);
  if (invocation.kind !== "run") throw new Error(`${argv.join(" ")} did not parse to a run`);
  const result = await invokeCommand(invocation.def, invocation.options, ctx);
  return { text: invocation.def.render(result, invocation.options as never), result };
};

/** Times one kind of call until maxRuns or maxMs (at least 3), after one warm-up call that also gives the sizes. */
const timeCall = async (ctx: Ctx, argv: readonly string[], budget: Budget): Promise<CallResult> => {
  let first: { text: string; result: unknown };
  try {
    first = await callOnce(ctx, argv);
  } catch (error) {
    if (isAppError(error)) return { refused: `${error.code}: ${error.message.slice(0, 300)}` };
    throw error;
  }
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < budget.maxRuns && (samples.length < 3 || performance.now() - started < budget.maxMs)) {
    const t0 = performance.now();
    await callOnce(ctx, argv);
    samples.push(performance.now() - t0);
  }
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    n: samples.length,
    p50_ms: round(percentile(samples, 50), 3),
    p95_ms: round(percentile(samples, 95), 3),
    ops_per_s: round(1000 / mean, 1),
    text_bytes: Buffer.byteLength(first.text),
    json_bytes: Buffer.byteLength(`${safeJson(first.result, 2)}\n`),
  };
};

/** How many recipients one broadcast reached, read from its result whatever shape it has (full list or summary). */
const recipientsOf = (result: unknown): number | undefined => {
  const r = result as Record<string, unknown>;
  for (const key of ["recipient_count", "recipients_total", "delivered_count"]) if (typeof r[key] === "number") return r[key];
  const counts = r.counts ?? r.outcomes;
  if (counts && typeof counts === "object") {
    const values = Object.values(counts as Record<string, unknown>).filter((v) => typeof v === "number") as number[];
    if (values.length > 0) return values.reduce((a, b) => a + b, 0);
  }
  return Array.isArray(r.recipients) ? r.recipients.length : undefined;
};

/** Every call of callArgv on one store, in this process. */
export const timeCallsInProcess = async (
  store: SeededStore,
  filter: readonly string[],
  budget: Budget,
): Promise<Record<string, CallResult>> => {
  const ctx = createContext(store.env);
  const figures: Record<string, CallResult> = {};
  try {
    for (const [label, argv] of Object.entries(callArgv(store, filter))) {
      const broadcast = label === "broadcast";
      // A broadcast to 10,000 writes 10,000 deliveries: fewer of them, so the store does not grow out of shape.
      const result = await timeCall(ctx, argv, broadcast ? { ...budget, maxRuns: Math.min(budget.maxRuns, 10) } : budget);
      if (broadcast && "p50_ms" in result) {
        const recipients = recipientsOf((await callOnce(ctx, argv)).result) ?? store.agents - 1;
        result.recipients = recipients;
        result.us_per_recipient = round((result.p50_ms * 1000) / recipients, 2);
      }
      figures[label] = result;
    }
  } finally {
    await ctx.closeStore();
  }
  return figures;
};

/** The directory page and a send as whole compiled processes, in alternation with `true` and the binary's --version. */
export const timeCallsAsProcesses = (store: SeededStore, budget: Budget) => {
  const argv = callArgv(store, []);
  const spec = (words: readonly string[]): ProcessSpec => {
    const [name, ...args] = words;
    return { argv: [join(root, "bin", name as string), ...args], env: { PATH: process.env.PATH, ...store.env }, cwd: root };
  };
  const commands: Record<string, ProcessSpec> = {
    floor_true: { argv: ["true"], env: { PATH: process.env.PATH }, cwd: root },
    floor_version: spec(["agents-list-cli", "--version"]),
    directory_page: spec(argv.directory_page),
    send: spec(argv.send),
  };
  const samples = timeAlternating(commands, budget.processRuns, 2);
  return Object.fromEntries(
    Object.entries(samples).map(([name, s]) => [name, { wall: spread(s.wall_ms), cpu_p50_ms: round(percentile(s.cpu_ms, 50)) }]),
  );
};
