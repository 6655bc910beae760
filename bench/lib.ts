// Small measuring helpers shared by the benchmarks: percentiles, process timing, result files.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const percentile = (samples: readonly number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
};

export const summarize = (samples: readonly number[]) => ({
  n: samples.length,
  p50_ms: round(percentile(samples, 50)),
  p95_ms: round(percentile(samples, 95)),
});

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** How a whole process is started: its argv, its whole environment (nothing is inherited) and its working directory. */
export interface ProcessSpec {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
}

/** Per run: wall time from spawn to exit as the parent sees it, and the CPU time (user + system) the child used. */
export interface ProcessSamples {
  wall_ms: number[];
  cpu_ms: number[];
}

/** Median with the fastest and slowest run beside it, so a reader sees the spread behind a ratio. */
export const spread = (samples: readonly number[]) => ({
  n: samples.length,
  p50_ms: round(percentile(samples, 50)),
  min_ms: round(Math.min(...samples)),
  max_ms: round(Math.max(...samples)),
});

const runOnce = (name: string, spec: ProcessSpec): { wall: number; cpu: number } => {
  const start = performance.now();
  const result = Bun.spawnSync(spec.argv, {
    env: spec.env as Record<string, string>,
    cwd: spec.cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const wall = performance.now() - start;
  if (result.exitCode !== 0) {
    throw new Error(`${name} (${spec.argv.join(" ")}) exited ${result.exitCode}: ${result.stderr.toString()}`);
  }
  return { wall, cpu: Number(result.resourceUsage.cpuTime.total) / 1000 };
};

/**
 * Times whole processes from the outside, in alternation: each round runs every command once, A B C A B C…, and
 * every other round runs them in the reverse order, so neither a machine that drifts in speed nor the position in
 * a round favours one command. The timer is this process around a blocking spawn-and-wait; its own cost (a process
 * that does nothing) can be measured as one of the commands. Fails loudly on a non-zero exit.
 */
export const timeAlternating = (
  commands: Record<string, ProcessSpec>,
  runs: number,
  warmup = 3,
): Record<string, ProcessSamples> => {
  const names = Object.keys(commands);
  const samples: Record<string, ProcessSamples> = Object.fromEntries(names.map((n) => [n, { wall_ms: [], cpu_ms: [] }]));
  for (let round = 0; round < runs + warmup; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const { wall, cpu } = runOnce(name, commands[name] as ProcessSpec);
      if (round < warmup) continue;
      samples[name]?.wall_ms.push(wall);
      samples[name]?.cpu_ms.push(cpu);
    }
  }
  return samples;
};

export const resultsDir = join(import.meta.dir, "results");

export const writeResults = (name: string, data: unknown): string => {
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ measured_at: new Date().toISOString(), ...(data as object) }, null, 2)}\n`);
  return file;
};
