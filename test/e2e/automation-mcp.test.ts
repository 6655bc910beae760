// A job calls a real MCP server (the reference server-everything, declared in a test Skill's mcp.json) through
// mcporter with JSON on stdin, emits the result, and the owner reads it with agent-inbox-cli.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, createJob, jobDir, owner, showRuns, workerOnce } from "../helpers/automation.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

const SCRIPT = `import { context, emitEvent } from "agent-computer/automation";

/** One MCP tool call: JSON arguments on stdin, the result as JSON on stdout. */
const call = async (selector: string, args: unknown) => {
  const proc = Bun.spawn(["mcporter", "call", selector, "--args", "-", "--output", "json"], {
    stdin: new TextEncoder().encode(JSON.stringify(args)),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(\`mcporter \${selector} exited \${code}: \${err}\`);
  return JSON.parse(out);
};

const { event } = context();
const { a, b } = event.data as { a: number; b: number };
const sum = await call("everything.get-sum", { a, b });
const env = await call("everything.get-env", {});
await emitEvent({ sum, server_saw_worker_secret: JSON.stringify(env).includes("must-not-leak") });
`;

let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  env = automationEnv(target);
  alice = await owner(env, "alice");
});
afterAll(async () => target?.dispose());

describe("MCP through mcporter [sqlite]", () => {
  test("the script calls get-sum with JSON on stdin and the owner reads the emitted result in its inbox", async () => {
    const id = await createJob(env, alice, jobDir(SCRIPT));
    await cli(env, alice, "run-automation-job-cli", ["--id", id, "--data-file", "-"], { input: '{"a":19,"b":23}' });
    await workerOnce({ ...env, WORKER_OWN_SECRET: "must-not-leak" });
    const [run] = await showRuns(env, alice, id);
    expect(run, run?.stderr_tail ?? "").toMatchObject({ state: "succeeded", emitted_count: 1 });
    const inbox = await runBin("agent-inbox-cli", ["--agent-id", alice.id, "--token-file", alice.tokenFile, "--json"], { env });
    expect(inbox.exitCode).toBe(0);
    const events = inbox.json<{ messages: { kind: string; body: string }[] }>().messages.map((m) => JSON.parse(m.body));
    const emitted = events.find((e) => e.type === "automation_job.emitted");
    expect(emitted.data).toEqual({
      sum: { content: [{ type: "text", text: "The sum of 19 and 23 is 42." }] },
      server_saw_worker_secret: false,
    });
  });
});
