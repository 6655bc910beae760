// Commands that preview first (cancel-automation-job-cli, agent-identity-cli unregister): the preview exits 0 and
// writes nothing (every table the same before and after), and a fan-out of any size prints as the first 20 with a
// count and the exact command that lists them all, in text and --json, within the 16 KB output budget.
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, createJob, jobDir, owner } from "../helpers/automation.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

const OUTPUT_BUDGET = 16 * 1024;

/** Runs a pasted command and every next page it points to (the output budget may page what it names). */
const allPages = async (command: string, key: string, env: Record<string, string>): Promise<{ id?: string }[]> => {
  const items: { id?: string }[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const line = `${command}${cursor ? ` --cursor ${cursor}` : ""} --json`;
    const r = await execa("bash", ["-c", line], { env: { ...env, PATH: `bin:${process.env.PATH}` } });
    const doc = JSON.parse(r.stdout) as Record<string, unknown> & { next_cursor?: string | null };
    items.push(...(doc[key] as { id?: string }[]));
    cursor = doc.next_cursor ?? null;
    if (!cursor) return items;
  }
  throw new Error(`${command}: more than 20 pages`);
};
let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;
let bob: TestAgent;
const made: string[] = [];

/** Every row of every table, so a preview that wrote anything at all shows up. */
const snapshot = async (): Promise<string> => {
  const tables = await target.sql("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  const rows: Record<string, unknown> = {};
  for (const { name } of tables) rows[String(name)] = await target.sql(`SELECT * FROM "${String(name)}"`);
  return JSON.stringify(rows);
};

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  env = automationEnv(target);
  alice = await owner(env, "alice");
  bob = await owner(env, "bob");
  made.push(dirname(alice.tokenFile), dirname(bob.tokenFile));
});
afterAll(async () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  await target?.dispose();
});

describe("previews write nothing and stay bounded [sqlite]", () => {
  test("cancel-automation-job-cli with 45 triggers lists 20, counts 45 and names the command for the rest", async () => {
    const dir = jobDir("1");
    made.push(dir);
    const jobId = await createJob(env, alice, dir);
    await target.sql(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 45)
       INSERT INTO automation_triggers (id, kind, owner, job_id, state, due_at, created_at)
       SELECT printf('cb_bulk_%02d', i), 'checkback', $1, $2, 'active', 4102444800000, i FROM n`,
      [alice.id, jobId],
    );
    const args = ["--agent-id", alice.id, "--token-file", alice.tokenFile, "--job-id", jobId];
    const before = await snapshot();
    const text = await runBin("cancel-automation-job-cli", args, { env });
    const json = await runBin("cancel-automation-job-cli", [...args, "--json"], { env });
    expect(await snapshot()).toBe(before);
    expect([text.exitCode, json.exitCode], text.stderr + json.stderr).toEqual([0, 0]);
    const more = text.stdout.match(/… and 25 more: (list-triggers-cli .*)$/m)?.[1];
    expect(more, text.stdout).toBe(`list-triggers-cli --agent-id alice --token-file ${alice.tokenFile} --all --limit 500`);
    expect(text.stdout.length).toBeLessThan(OUTPUT_BUDGET);
    const preview = json.json<{ cancelled_triggers: string[]; cancelled_triggers_total: number }>();
    expect([preview.cancelled_triggers.length, preview.cancelled_triggers_total]).toEqual([20, 45]);
    // The command it names lists them all, page after page within the output budget.
    const listed = await allPages(more as string, "triggers", env);
    expect(listed.filter((t) => t.id?.startsWith("cb_bulk_"))).toHaveLength(45);
    const done = await cli<{ cancelled_triggers: string[]; cancelled_triggers_total: number }>(
      env,
      alice,
      "cancel-automation-job-cli",
      ["--job-id", jobId, "--confirm"],
    );
    expect([done.cancelled_triggers.length, done.cancelled_triggers_total]).toEqual([20, 45]);
  });

  test("agent-identity-cli unregister with 30 open tasks lists 20, counts 30 and names the command for the rest", async () => {
    await target.sql(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
       INSERT INTO tasks (id, title, body, priority, priority_rank, state, poster, assignee, created_at, updated_at)
       SELECT printf('task_bulk_%02d', i), 'a long title ' || hex(randomblob(90)), 'b', 'normal', 1, 'assigned', $1, $2, $3 + i, $3 + i
       FROM n`,
      [alice.id, bob.id, Date.now()],
    );
    const args = ["unregister", "--agent-id", bob.id, "--token-file", bob.tokenFile];
    const before = await snapshot();
    const text = await runBin("agent-identity-cli", args, { env });
    const json = await runBin("agent-identity-cli", [...args, "--json"], { env });
    expect(await snapshot()).toBe(before);
    expect([text.exitCode, json.exitCode], text.stderr + json.stderr).toEqual([0, 0]);
    expect(text.stdout).toContain("hand on 30 open task(s)");
    expect(text.stdout.match(/^ {2}task task_bulk_/gm)).toHaveLength(20);
    const more = text.stdout.match(/… and 10 more: (agent-task-cli .*)$/m)?.[1];
    expect(more, text.stdout).toBe(
      `agent-task-cli list --agent-id bob --token-file ${bob.tokenFile} --state assigned --state accepted --limit 200`,
    );
    const preview = json.json<{ open_tasks: unknown[]; open_tasks_total: number; tasks_command: string }>();
    expect([preview.open_tasks.length, preview.open_tasks_total, preview.tasks_command]).toEqual([20, 30, more]);
    expect(await allPages(more as string, "tasks", env)).toHaveLength(30);
  });
});
