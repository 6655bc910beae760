// The README's walk-through is run exactly as written (one shell, block after block, nothing swapped); if a
// block breaks, this test fails. It runs twice: as it comes, and while another process holds port 8787 (what
// `npm start`, the quick start, leaves running).

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { binaryForm, repoRoot } from "../helpers/bin.ts";

const walkthrough = (): string => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const section = readme.split(/^## Walk-through$/m)[1]?.split(/^## /m)[0] ?? "";
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  return blocks.join("\n");
};

const runWalkthrough = async () => {
  // A failing block must not leave the background worker holding the output pipe open.
  const script = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${walkthrough()}`;
  // Its own process group: whatever the walk-through leaves running (the worker) is killed with it.
  const child = execa("bash", ["-c", script], {
    cwd: repoRoot,
    env: { AGENT_COMPUTER_FORM: binaryForm, NO_COLOR: "1", AGENT_COMPUTER_WORKER_URL: undefined },
    reject: false,
    timeout: 170_000,
    detached: true,
  });
  try {
    return await child;
  } finally {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // the group already ended
    }
  }
};

const expectEveryBlockRan = (result: Awaited<ReturnType<typeof runWalkthrough>>): void => {
  expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toContain("bob: live");
  expect(result.stdout).toContain("parser-v2 is ready for review");
  expect(result.stdout).toContain("automation_job.emitted");
  // The webhook's own run, created by the signed delivery and finished by the walk-through's worker.
  expect(result.stdout).toMatch(/"accepted":true/);
  expect(result.stdout).toMatch(/run_[0-9a-f]{32} succeeded · attempt 1 · webhook hook_[0-9a-f]{32}/);
};

test("every command block of the README walk-through runs", { timeout: 180_000 }, async () => {
  expectEveryBlockRan(await runWalkthrough());
});

/** Holds 127.0.0.1:8787 like another worker would (answering 404 to everything); null when it is already taken. */
const hold8787 = (): Promise<Server | null> =>
  new Promise((resolve, reject) => {
    const server = createServer((_request, response) => response.writeHead(404).end('{"error":"not_found"}'));
    server.once("error", (error: NodeJS.ErrnoException) => (error.code === "EADDRINUSE" ? resolve(null) : reject(error)));
    server.listen(8787, "127.0.0.1", () => resolve(server));
  });

test("the walk-through works while another process holds port 8787", { timeout: 180_000 }, async () => {
  const holder = await hold8787();
  try {
    expectEveryBlockRan(await runWalkthrough());
  } finally {
    await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
  }
});
