// The JSON nesting limit (json-depth.ts, 64 levels) at every door a process opens: run-automation-job-cli --data-file
// (INVALID_INPUT, exit 2, nothing written), a correctly signed webhook delivery (400 body_too_deep, never a retryable
// 5xx, the delivery id not consumed) and the emitEvent endpoint a job script calls (400 too_deep).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { signStandard } from "../../app/agent_computer/src/domain/automation/webhook-verify.ts";
import { MAX_JSON_DEPTH } from "../../app/agent_computer/src/json-depth.ts";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, createJob, type Daemon, jobDir, owner, startDaemon, waitFor } from "../helpers/automation.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;
let jobId: string;
let worker: Daemon | undefined;

const nested = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);
const count = async (table: string, column: string, value: string): Promise<number> =>
  Number((await target.sql(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = $1`, [value]))[0]?.n);

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  env = automationEnv(target);
  alice = await owner(env, "alice");
  jobId = await createJob(
    env,
    alice,
    jobDir('import { context } from "agent-computer/automation"; console.log(JSON.stringify(context().event.data));'),
  );
});
afterAll(async () => {
  worker?.process.kill("SIGTERM");
  await worker?.process;
  await target?.dispose();
});

describe("JSON nesting limit [sqlite]", () => {
  test("run-automation-job-cli --data-file nested 100k levels: INVALID_INPUT naming the flag, exit 2, no run", async () => {
    const file = join(jobDir("export {}"), "deep.json");
    writeFileSync(file, nested(100_000));
    const r = await runBin(
      "run-automation-job-cli",
      ["--agent-id", alice.id, "--token-file", alice.tokenFile, "--job-id", jobId, "--data-file", file, "--json"],
      { env },
    );
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: { code: "INVALID_INPUT", message: `--data-file: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` },
    });
    expect(r.stderr).not.toContain("call stack");
    const fromStdin = await runBin(
      "run-automation-job-cli",
      ["--agent-id", alice.id, "--token-file", alice.tokenFile, "--job-id", jobId, "--data-file", "-"],
      { env, input: nested(MAX_JSON_DEPTH + 1) },
    );
    expect(fromStdin.exitCode).toBe(2);
    expect(fromStdin.stderr).toContain(`--data-file: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
    expect(await count("automation_runs", "job_id", jobId)).toBe(0);
    // The limit itself is accepted.
    const atLimit = await runBin(
      "run-automation-job-cli",
      ["--agent-id", alice.id, "--token-file", alice.tokenFile, "--job-id", jobId, "--data-file", "-", "--json"],
      { env, input: nested(MAX_JSON_DEPTH) },
    );
    expect(atLimit.exitCode, atLimit.stderr).toBe(0);
    expect(await count("automation_runs", "job_id", jobId)).toBe(1);
  });

  test("a correctly signed webhook body nested 50k levels is 400 body_too_deep, and its delivery id stays unused", async () => {
    worker ??= await startDaemon(env);
    const created = await cli<{ id: string; secret: string }>(env, alice, "create-webhook-cli", [
      "--label",
      "deep sender",
      "--automation-job-id",
      jobId,
      "--max-body-bytes",
      "4194304",
    ]);
    const post = (body: string) => {
      const ts = Math.floor(Date.now() / 1000);
      return fetch(`${worker?.url}/hooks/${created.id}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": "msg_deep_1",
          "webhook-timestamp": String(ts),
          "webhook-signature": signStandard(created.secret, "msg_deep_1", ts, body),
        },
        body,
      });
    };
    const deep = await post(nested(50_000));
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error: "body_too_deep" });
    expect(await count("automation_firings", "trigger_id", created.id)).toBe(0);
    expect(await count("automation_runs", "trigger_id", created.id)).toBe(0);
    // One level past the limit is refused too; the same delivery id with an acceptable body is then accepted once.
    expect((await post(`{"a":${nested(MAX_JSON_DEPTH)}}`)).status).toBe(400);
    const fine = await post(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(fine.status).toBe(202);
    expect(await fine.json()).toMatchObject({ accepted: true, duplicate: false, delivery_id: "msg_deep_1" });
    expect(await count("automation_runs", "trigger_id", created.id)).toBe(1);
  });

  test("the emitEvent endpoint answers a payload nested too deep with 400 too_deep; the SDK refuses it first", async () => {
    worker ??= await startDaemon(env);
    const script = `
import { readFileSync } from "node:fs";
import { emitEvent } from "agent-computer/automation";
const a = JSON.parse(readFileSync(process.env.AGENT_COMPUTER_ATTEMPT_FILE, "utf8"));
const deep = "[".repeat(30000) + "]".repeat(30000);
const answer = await fetch(a.emit_url, {
  method: "POST",
  headers: { authorization: "Bearer " + a.lease_token, "content-type": "application/json" },
  body: '{"run_id":' + JSON.stringify(a.run_id) + ',"attempt":' + a.attempt + ',"payload":' + deep + "}",
});
const sdk = await emitEvent(JSON.parse("[".repeat(${MAX_JSON_DEPTH + 1}) + "]".repeat(${MAX_JSON_DEPTH + 1}))).then(
  () => "emitted",
  (e) => e.name + ": " + e.message,
);
console.log(JSON.stringify({ status: answer.status, body: await answer.json(), sdk }));
`;
    const emitter = await createJob(env, alice, jobDir(script));
    const run = await cli<{ run_id: string }>(env, alice, "run-automation-job-cli", [
      "--job-id",
      emitter,
      "--wait-seconds",
      "60",
    ]);
    const rows = await waitFor(async () => {
      const found = await target.sql("SELECT state, stdout_tail, emitted_count FROM automation_runs WHERE id = $1", [run.run_id]);
      return found[0]?.state === "succeeded" ? found[0] : undefined;
    });
    expect(JSON.parse(String(rows.stdout_tail))).toEqual({
      status: 400,
      body: { error: "too_deep", message: `the payload nests deeper than ${MAX_JSON_DEPTH} levels` },
      sdk: `RangeError: emitEvent(payload): arrays and objects nested at most ${MAX_JSON_DEPTH} levels deep`,
    });
    expect(Number(rows.emitted_count)).toBe(0);
  });
});
