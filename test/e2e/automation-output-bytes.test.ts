// Bytes a store cannot hold as text never turn a finished run into a retry: a script that prints NUL and
// invalid UTF-8 ends in one attempt with its output stored as visible text (\u0000, U+FFFD), the same on
// every store; a message body with NUL is refused before anything is written, naming the flag.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, createJob, jobDir, owner, showRuns, workerOnce } from "../helpers/automation.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("bytes a store cannot hold [%s]", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  let alice: TestAgent;

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = automationEnv(target);
    alice = await owner(env, "alice");
  });
  afterAll(async () => target?.dispose());

  test("a script printing NUL and invalid UTF-8 runs once and ends succeeded, its output shown with escapes", async () => {
    const jobId = await createJob(
      env,
      alice,
      jobDir('process.stdout.write("a\\0b\\n"); process.stderr.write(Buffer.from([0x78, 0xff, 0xfe, 0x79, 0x0a]));'),
    );
    const { run_id } = await cli<{ run_id: string }>(env, alice, "run-automation-job-cli", ["--id", jobId]);
    await workerOnce(env);
    const [run] = await showRuns(env, alice, jobId);
    expect(run).toMatchObject({
      id: run_id,
      state: "succeeded",
      attempt: 1,
      error_kind: null,
      stdout_tail: "a\\u0000b\n",
      stderr_tail: "x\ufffd\ufffdy\n",
    });
    const attempts = await target.sql("SELECT attempt, outcome FROM automation_attempts WHERE run_id = $1", [run_id]);
    expect(attempts.map((a) => [Number(a.attempt), a.outcome])).toEqual([[1, "succeeded"]]);
  });

  test("a message body with NUL is refused with INVALID_INPUT naming --body-file, and nothing is stored", async () => {
    const bob = await owner(env, "bob");
    const file = join(mkdtempSync(join(tmpdir(), "ac-body-")), "body.txt");
    writeFileSync(file, "a\0b");
    const error = await cli<{ error: { code: string; message: string } }>(
      env,
      alice,
      "agent-send-cli",
      ["--to", bob.id, "--body-file", file],
      { expectExit: 2 },
    );
    expect(error.error).toMatchObject({ code: "INVALID_INPUT", message: expect.stringContaining("--body-file") });
    expect(error.error.message).toContain("NUL");
    const stored = await target.sql("SELECT COUNT(*) AS n FROM messages WHERE sender = $1", [alice.id]);
    expect(Number(stored[0]?.n)).toBe(0);
  });
});
