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

/** Wall time of whole processes, spawn to exit, after warm-up runs. Fails loudly on a non-zero exit. */
export const timeProcess = (argv: string[], env: Record<string, string | undefined>, runs: number, warmup = 3): number[] => {
  const samples: number[] = [];
  for (let i = 0; i < runs + warmup; i++) {
    const start = performance.now();
    const result = Bun.spawnSync(argv, { env: env as Record<string, string>, stdout: "pipe", stderr: "pipe" });
    const elapsed = performance.now() - start;
    if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${result.exitCode}: ${result.stderr.toString()}`);
    if (i >= warmup) samples.push(elapsed);
  }
  return samples;
};

/**
 * Wall times of several commands measured round-robin (one run of each in turn), so a machine that slows down
 * or speeds up during the measurement moves every command's figures alike and their ratios stay fair.
 */
export const timeProcessesInterleaved = (
  commands: Record<string, { argv: string[]; env: Record<string, string | undefined> }>,
  runs: number,
  warmup = 3,
): Record<string, number[]> => {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let i = 0; i < runs + warmup; i++) {
    for (const [name, { argv, env }] of Object.entries(commands)) {
      const [one] = timeProcess(argv, env, 1, 0);
      if (i >= warmup && one !== undefined) samples[name]?.push(one);
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
