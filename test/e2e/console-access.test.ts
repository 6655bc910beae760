// The console is private to the Unix user who owns the state directory, end to end: the real worker runs as this
// user (root here) and another Unix user (nobody) asks its console for pages with curl, the way the attack that
// found the leak did. That user gets 401 and nothing of the store; the owner's printed link opens it. The console
// token never reaches the worker's log when stderr is not a terminal, nor argv.
import { readFileSync } from "node:fs";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, consoleLinkFor, type Daemon, jobDir, owner, startDaemon } from "../helpers/automation.ts";
import { binPath } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn("SKIPPED: console access as another Unix user (needs root to run curl as nobody)");

const LABEL = "payroll-export-label-4d1e";
const OUTPUT = "tail-line-visible-only-to-owner-83b0";

let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;
let worker: Daemon;
let jobId = "";
let hookId = "";

/** curl as the nobody user: status and body. */
const asNobody = async (url: string): Promise<{ status: number; body: string }> => {
  const r = await execa("runuser", ["-u", "nobody", "--", "curl", "-sS", "-o", "-", "-w", "\n%{http_code}", url], {
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`curl as nobody failed (${r.exitCode}): ${r.stderr}`);
  const text = String(r.stdout);
  const cut = text.lastIndexOf("\n");
  return { status: Number(text.slice(cut + 1)), body: text.slice(0, cut) };
};

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  env = automationEnv(target);
  alice = await owner(env, "alice");
  jobId = (
    await cli<{ id: string }>(env, alice, "create-automation-job-cli", [
      "--dir",
      jobDir(`console.log("${OUTPUT}");`),
      "--label",
      LABEL,
    ])
  ).id;
  hookId = (await cli<{ id: string }>(env, alice, "create-webhook-cli", ["--label", "hook", "--job-id", jobId])).id;
  worker = await startDaemon(env);
  await cli(env, alice, "run-automation-job-cli", ["--job-id", jobId, "--wait-seconds", "30"]);
}, 120_000);

afterAll(async () => {
  worker?.process.kill("SIGTERM");
  await worker?.process;
  await target?.dispose();
});

describe("the printed link and the log [sqlite]", () => {
  test("--console-url prints the link to this worker, holding the token from the 0600 file", async () => {
    const link = await consoleLinkFor(env, worker.url);
    const token = readFileSync(`${target.env.AGENT_COMPUTER_HOME}/console-token`, "utf8").trim();
    expect(link).toBe(`${worker.url}/?token=${token}`);
  });

  test("a worker whose stderr is not a terminal logs the command, never the token", async () => {
    const token = readFileSync(`${target.env.AGENT_COMPUTER_HOME}/console-token`, "utf8").trim();
    expect(worker.stderr()).not.toContain(token);
    expect(worker.stderr()).toContain(
      `"console_link_command":"agent-computer-worker --console-url --port ${new URL(worker.url).port}"`,
    );
  });

  test("the owner's link opens the console: 303 with the cookie, then the page with the job's output", async () => {
    const signIn = await fetch(await consoleLinkFor(env, worker.url), { redirect: "manual" });
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const page = await fetch(`${worker.url}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain(LABEL);
    expect(body).toContain(OUTPUT);
  });

  test("--console-url with --port 0 is refused: it names no worker", async () => {
    const r = await execa(binPath("agent-computer-worker"), ["--console-url", "--port", "0"], { env, reject: false });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain("INVALID_INPUT: --port:");
  });
});

describe.skipIf(!isRoot)("another Unix user on this host [sqlite]", () => {
  test("gets 401 and none of the store's data on every page", async () => {
    for (const path of ["/", "/triggers", "/agents"]) {
      const { status, body } = await asNobody(`${worker.url}${path}`);
      expect(status, path).toBe(401);
      for (const secret of [LABEL, OUTPUT, jobId, hookId, "alice", target.env.AGENT_COMPUTER_HOME as string]) {
        expect(body, `${path} shows ${secret}`).not.toContain(secret);
      }
      expect(body).toContain("agent-computer-worker --console-url");
    }
  });

  test("a guessed token gets 401 too", async () => {
    const { status, body } = await asNobody(`${worker.url}/?token=${"A".repeat(43)}`);
    expect(status).toBe(401);
    expect(body).not.toContain(LABEL);
  });

  test("cannot read the token file", async () => {
    const r = await execa("runuser", ["-u", "nobody", "--", "cat", `${target.env.AGENT_COMPUTER_HOME}/console-token`], {
      reject: false,
    });
    expect(r.exitCode).not.toBe(0);
    expect(String(r.stderr)).toContain("Permission denied");
  });
});
