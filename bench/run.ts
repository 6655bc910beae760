// `npm run bench`: runs every benchmark in this folder; each prints its figures and writes bench/results/<name>.json.
import { existsSync } from "node:fs";
import { join } from "node:path";

const only = process.argv.slice(2);
for (const name of [
  "startup",
  "mesh",
  "sqlite-batch",
  "automation",
  "herdr-wake",
  "terminal-text",
  "search",
  "pg-contention",
  "multi-host",
  "cli-send",
  "inbox-wait",
  "model-bytes",
  "growth",
]) {
  if (only.length > 0 && !only.includes(name)) continue;
  const file = join(import.meta.dir, `${name}.ts`);
  if (!existsSync(file)) continue;
  console.log(`\n=== bench: ${name} ===`);
  const result = Bun.spawnSync([process.execPath, file], { stdout: "inherit", stderr: "inherit", env: process.env });
  if (result.exitCode !== 0) process.exit(result.exitCode ?? 1);
}
