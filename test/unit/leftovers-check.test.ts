// The test command's leftover check (scripts/leftovers.ts): after a snapshot, a new temp entry and a new process
// of this checkout are named and fail it; with nothing new it passes. (Databases and network namespaces take the
// same path; the suite leaves the server's and the host's alone.)

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";

const work = mkdtempSync(join(tmpdir(), "ac-leftovers-"));
// A scratch checkout path: the suite's other files run processes of the real one at the same time.
const checkout = join(work, "checkout");
const check = (command: "snapshot" | "compare", file: string, systemTmp: string) =>
  execa(join(repoRoot, "node_modules/.bin/bun"), [join(repoRoot, "scripts/leftovers.ts"), command, file], {
    env: { TMPDIR: systemTmp, AGENT_COMPUTER_TEST_PG_URL: "", AC_LEFTOVERS_ROOT: checkout },
    reject: false,
  });

test("a new temp entry and a process of this checkout fail the check, each named; nothing new passes", async () => {
  const systemTmp = join(work, "tmp");
  mkdirSync(systemTmp);
  const snapshot = join(work, "before.json");
  expect((await check("snapshot", snapshot, systemTmp)).exitCode).toBe(0);
  expect((await check("compare", snapshot, systemTmp)).exitCode).toBe(0);

  mkdirSync(join(systemTmp, "ac-store-left"));
  // A process whose command line names the checkout, as a test's daemon would.
  const straggler = execa("sleep", ["60"], { argv0: join(checkout, "bin", "straggler"), reject: false, detached: true });
  try {
    const failed = await check("compare", snapshot, systemTmp);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toContain(`LEFTOVER entry in ${systemTmp}: ac-store-left`);
    expect(failed.stdout).toContain(`LEFTOVER process: ${straggler.pid} ${join(checkout, "bin", "straggler")} 60`);
    const listed = JSON.parse(readFileSync(join(work, "leftovers.json"), "utf8")) as string[];
    expect(listed).toHaveLength(2);
  } finally {
    process.kill(-(straggler.pid as number), "SIGKILL");
    await straggler;
    rmSync(join(systemTmp, "ac-store-left"), { recursive: true });
  }
  expect((await check("compare", snapshot, systemTmp)).exitCode).toBe(0);
}, 60_000);
