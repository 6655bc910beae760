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
import { type ProcessSamples, type ProcessSpec, percentile, round, spread, timeAlternating } from "./lib.ts";

const root = join(import.meta.dir, "..");

export interface Budget {
  /** Most timed calls of one kind on one store, and the most wall time spent on them (whichever comes first). */
  maxRuns: number;
  maxMs: number;
  /** Rounds taken whatever maxMs says: every store is called at least this often. */
  minRounds: number;
  /**
   * Whole-process runs of each command, in alternation, after processWarmup untimed rounds; rounds stop early once
   * they took processMaxMs (after 3), since a page of 10,000 agents on a loaded machine takes seconds a process.
   */
  processRuns: number;
  processWarmup: number;
  processMaxMs: number;
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
    inbox_read: ["agent-inbox-cli", ...as("reader")],
    send: ["agent-send-cli", ...as("writer"), "--to", "reader", "--body", "growth bench send"],
    // Last: each broadcast adds a delivery per agent, which would leave the larger stores larger for the others.
    broadcast: ["agent-send-cli", ...as("writer"), "--broadcast", "--body", "growth bench broadcast"],
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

type Sizes = Pick<CallFigures, "text_bytes" | "json_bytes"> & { result: unknown };

const figuresOf = (samples: number[], sizes: Sizes): CallFigures => {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    n: samples.length,
    p50_ms: round(percentile(samples, 50), 3),
    p95_ms: round(percentile(samples, 95), 3),
    ops_per_s: round(1000 / mean, 1),
    text_bytes: sizes.text_bytes,
    json_bytes: sizes.json_bytes,
  };
};

/** Per round, each store gets calls for this long (at least one), so a slow scale and a fast one take turns. */
const SLICE_MS = 25;

/**
 * Times one kind of call on every store in alternation (the order reversed every other round), so a machine whose
 * speed drifts moves every scale alike: rounds until maxMs (at least minRounds), at most maxRuns calls per store. One
 * warm-up call per store first, which also gives the sizes; a store that refuses the call is reported as refused.
 */
const timeCallAcross = async (ctxs: Ctx[], argvs: (readonly string[])[], budget: Budget): Promise<CallResult[]> => {
  const sizes: (Sizes | { refused: string })[] = [];
  for (const [i, ctx] of ctxs.entries()) {
    try {
      const first = await callOnce(ctx, argvs[i] as readonly string[]);
      sizes.push({
        text_bytes: Buffer.byteLength(first.text),
        json_bytes: Buffer.byteLength(`${safeJson(first.result, 2)}\n`),
        result: first.result,
      });
    } catch (error) {
      if (!isAppError(error)) throw error;
      sizes.push({ refused: `${error.code}: ${error.message.slice(0, 300)}` });
    }
  }
  const samples: number[][] = ctxs.map(() => []);
  const refusedNow = (i: number) => "refused" in (sizes[i] as object);
  const started = performance.now();
  for (let round = 0; round < budget.minRounds || performance.now() - started < budget.maxMs; round++) {
    const open = ctxs.map((_, i) => i).filter((i) => !refusedNow(i) && (samples[i] as number[]).length < budget.maxRuns);
    if (open.length === 0) break;
    for (const i of round % 2 === 0 ? open : [...open].reverse()) {
      const sliceStart = performance.now();
      do {
        const t0 = performance.now();
        try {
          await callOnce(ctxs[i] as Ctx, argvs[i] as readonly string[]);
        } catch (error) {
          // A limit that allows the first calls and refuses later ones (a broadcast rate): say after how many.
          if (!isAppError(error)) throw error;
          const after = (samples[i] as number[]).length + 1;
          sizes[i] = { refused: `after ${after} call(s): ${error.code}: ${error.message.slice(0, 300)}` };
          break;
        }
        (samples[i] as number[]).push(performance.now() - t0);
      } while (performance.now() - sliceStart < SLICE_MS && (samples[i] as number[]).length < budget.maxRuns);
    }
  }
  return sizes.map((size, i) => ("refused" in size ? size : { ...figuresOf(samples[i] as number[], size), result: size.result }));
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

/** Every call of callArgv on every store, in this process, the stores in alternation; results by store. */
export const timeCallsInProcess = async (
  stores: readonly SeededStore[],
  filter: readonly string[],
  budget: Budget,
): Promise<Record<string, CallResult>[]> => {
  const ctxs = stores.map((store) => createContext(store.env));
  const figures: Record<string, CallResult>[] = stores.map(() => ({}));
  try {
    const argvs = stores.map((store) => callArgv(store, filter));
    for (const label of Object.keys(argvs[0] as object) as (keyof ReturnType<typeof callArgv>)[]) {
      const broadcast = label === "broadcast";
      // A broadcast to 10,000 writes 10,000 deliveries: fewer of them, so the store does not grow out of shape.
      const results = await timeCallAcross(
        ctxs,
        argvs.map((a) => a[label]),
        broadcast ? { ...budget, maxRuns: Math.min(budget.maxRuns, 10) } : budget,
      );
      for (const [i, result] of results.entries()) {
        if ("result" in result) {
          const { result: output, ...rest } = result as CallFigures & { result: unknown };
          if (broadcast) {
            const recipients = recipientsOf(output) ?? (stores[i] as SeededStore).agents - 1;
            rest.recipients = recipients;
            rest.us_per_recipient = round((rest.p50_ms * 1000) / recipients, 2);
          }
          (figures[i] as Record<string, CallResult>)[label] = rest;
        } else (figures[i] as Record<string, CallResult>)[label] = result;
      }
    }
  } finally {
    for (const ctx of ctxs) await ctx.closeStore();
  }
  return figures;
};

/**
 * The directory page and a send as whole compiled processes on every store, all in one alternation (lib.ts
 * timeAlternating) with two floors, `true` and the binary's --version. Figures by command, "<call> @<agents>".
 */
export const timeCallsAsProcesses = (stores: readonly SeededStore[], budget: Budget) => {
  const spec = (store: SeededStore, words: readonly string[]): ProcessSpec => {
    const [name, ...args] = words;
    return { argv: [join(root, "bin", name as string), ...args], env: { PATH: process.env.PATH, ...store.env }, cwd: root };
  };
  const first = stores[0] as SeededStore;
  const commands: Record<string, ProcessSpec> = {
    floor_true: { argv: ["true"], env: { PATH: process.env.PATH }, cwd: root },
    floor_version: spec(first, ["agents-list-cli", "--version"]),
  };
  for (const store of stores) {
    const argv = callArgv(store, []);
    commands[`directory_page @${store.agents}`] = spec(store, argv.directory_page);
    commands[`send @${store.agents}`] = spec(store, argv.send);
  }
  const names = Object.keys(commands);
  const samples: Record<string, ProcessSamples> = Object.fromEntries(names.map((n) => [n, { wall_ms: [], cpu_ms: [] }]));
  const started = performance.now();
  for (let round = 0; ; round++) {
    const timed = round - budget.processWarmup;
    if (timed >= budget.processRuns || (timed >= 3 && performance.now() - started > budget.processMaxMs)) break;
    // One round of lib.ts timeAlternating at a time, in reverse order every other round as it does.
    const order = round % 2 === 0 ? names : [...names].reverse();
    const once = timeAlternating(Object.fromEntries(order.map((n) => [n, commands[n] as ProcessSpec])), 1, 0);
    if (timed < 0) continue;
    for (const [name, s] of Object.entries(once)) {
      samples[name]?.wall_ms.push(...s.wall_ms);
      samples[name]?.cpu_ms.push(...s.cpu_ms);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, s]) => [name, { wall: spread(s.wall_ms), cpu_p50_ms: round(percentile(s.cpu_ms, 50)) }]),
  );
};
