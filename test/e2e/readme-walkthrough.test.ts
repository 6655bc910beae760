// The README's walk-through is run exactly as written (one shell, block after block); if a block breaks,
// this test fails. Only the worker port is swapped for a free one.

import { readFileSync } from "node:fs";
import { createServer } from "node:net";
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

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

test("every command block of the README walk-through runs", { timeout: 180_000 }, async () => {
  const port = await freePort();
  // A failing block must not leave the background worker holding the output pipe open.
  const script = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${walkthrough().replaceAll("8787", String(port))}`;
  // Its own process group: whatever the walk-through leaves running (the worker) is killed with it.
  const child = execa("bash", ["-c", script], {
    cwd: repoRoot,
    env: { AGENT_COMPUTER_FORM: binaryForm, NO_COLOR: "1", AGENT_COMPUTER_WORKER_URL: `http://127.0.0.1:${port}` },
    reject: false,
    timeout: 170_000,
    detached: true,
  });
  let result: Awaited<typeof child>;
  try {
    result = await child;
  } finally {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // the group already ended
    }
  }
  expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toContain("bob: live");
  expect(result.stdout).toContain("parser-v2 is ready for review");
  expect(result.stdout).toContain("automation_job.emitted");
  expect(result.stdout).toMatch(/succeeded/);
});
